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
                console.say(names.isEmpty ? "No templates yet: fill a form, then template save NAME." : names.joined(separator: "\n"))
            case ("save", 2):
                guard let form = lastForm else { throw TemplateError.nothingFilled }
                try store.save(form, as: words[1])
                console.say("template \(words[1]) saved: \(form.operation), \(form.values.count) values — run @\(words[1]) fills them in")
            default:
                console.error("usage: template [save NAME]")
            }
        } catch {
            console.error(String(describing: error))
        }
    }
}
