import Foundation
import RBSCore

extension REPL {
    /// `template` (the names) and `template save NAME` (the form filled last).
    func template(_ words: [String]) {
        let store = TemplateStore(dataDirectory: runtime.paths.data)
        do {
            switch (words.first?.lowercased(), words.count) {
            case (nil, _), ("list", 1):
                let names = store.names()
                console.say(names.isEmpty ? console.text(.report(.noTemplates)) : names.joined(separator: "\n"))
            case ("save", 2):
                guard let form = lastForm else { throw TemplateError.nothingFilled }
                try store.save(form, as: words[1])
                console.say(console.text(.report(.templateSaved(name: words[1], operation: form.operation, values: form.values.count))))
            default:
                console.error(console.text(.report(.templateUsage)))
            }
        } catch {
            console.error(String(describing: error))
        }
    }
}
