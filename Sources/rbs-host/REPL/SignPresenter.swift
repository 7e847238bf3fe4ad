import Foundation
import RBSCore
import RBSLedger
import RBSLineEditor

/// Review and signing, presented modally over the form: the amount and payee prominent, then the one-time code.
/// Cancelling returns to the form with its values; nothing is journaled or posted.
final class SignPresenter {
    private let draft: DocumentDraft
    private let runtime: Runtime
    let console: Console
    private let navigation: Navigation

    init(draft: DocumentDraft, runtime: Runtime, console: Console, navigation: Navigation) {
        self.draft = draft
        self.runtime = runtime
        self.console = console
        self.navigation = navigation
    }

    func run() -> ModuleOutput {
        navigation.enter(console.text(.sign))
        defer { navigation.leave() }
        let module: SignModule
        do {
            module = try SignModule(draft: draft, ledger: try runtime.ledger(),
                                    directory: runtime.locator.optional(BankDirectory.self))
        } catch {
            console.error(error.description)
            return .cancelled
        }
        if let refusal = module.refusal {
            // The core would refuse it: say why and go back to the form before any code is asked for.
            console.error(HostMessage.wouldRefuse(refusal, console.language))
            return .refused
        }
        if let duplicate = module.duplicate, !confirmDuplicate(duplicate) { return .cancelled }
        console.say(Terminal.bold(navigation.breadcrumb))
        for line in module.review(in: console.language) {
            let text = "  \(line.caption): \(line.value)"
            console.say(line.prominent ? Terminal.bold(text) : text)
        }
        return Self.askForCode(console, prompt: module.challenge.map { console.text(.responsePrompt(OCRASuite.grouped($0))) }
            ?? console.text(.codePrompt)) { code throws(LedgerError) in
            // Reaching the code with a duplicate means the person answered yes; one posted since is the core's to refuse.
            RunText.render(RunReport(outcome: try module.sign(code: code, confirmDuplicate: module.duplicate != nil), document: module.document,
                                     language: console.language), language: console.language)
        }
    }

    /// Asks for the one-time code (or response) until `sign` takes one — its text is the module's output — or the
    /// person cancels (`cancel`, an empty line, Ctrl-C/Ctrl-D), or a failure leaves (``SignModule/afterFailure(_:)``:
    /// a wrong code asks again while attempts are left).
    static func askForCode(_ console: Console, prompt: String, sign: (String) throws(LedgerError) -> String) -> ModuleOutput {
        while true {
            console.completions = { _, word in ["cancel"].filter { $0.hasPrefix(word) } }
            let input = console.read(prompt, remember: false)
            console.completions = { _, _ in [] }
            guard case .line(let raw) = input else { return .cancelled }
            let code = raw.trimmingCharacters(in: .whitespaces)
            if code.lowercased() == "cancel" || code.isEmpty { return .cancelled }
            do {
                return .done(try sign(code))
            } catch {
                console.error(HostMessage.describe(error, console.language))
                switch SignModule.afterFailure(error) {
                case .retry: continue
                case .leave: return .cancelled
                }
            }
        }
    }

}
