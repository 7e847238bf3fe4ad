import Foundation
import RBSCore
import RBSMoney

extension REPL {
    /// `template` (the names), `template save NAME` (the form filled last) and `template qr NAME` (a payment
    /// template as a payment QR code's text, ГОСТ Р 56042-2014, for another payer's app).
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
            case ("qr", 2):
                let form = try store.load(words[1])
                let directory = runtime.locator.optional(BankDirectory.self)
                do throws(PaymentQRWriteError) {
                    console.say(try PaymentQR.written(template: form, directory: directory).text)
                } catch {
                    console.error(HostMessage.describe(error, console.language))
                }
            default:
                console.error(console.text(.report(.templateUsage)))
            }
        } catch {
            console.error(String(describing: error))
        }
    }
}
