import Foundation
import RBSCore
import RBSLedger
import RBSLineEditor

/// Review and signing, presented modally over the form: the amount and payee prominent, then the one-time code.
/// Cancelling returns to the form with its values; nothing is journaled or posted.
final class SignPresenter {
    private let draft: DocumentDraft
    private let runtime: Runtime
    private let console: Console
    private let navigation: Navigation

    init(draft: DocumentDraft, runtime: Runtime, console: Console, navigation: Navigation) {
        self.draft = draft
        self.runtime = runtime
        self.console = console
        self.navigation = navigation
    }

    func run() -> ModuleOutput {
        navigation.enter("Sign")
        defer { navigation.leave() }
        let module: SignModule
        do {
            module = try SignModule(draft: draft, ledger: try runtime.ledger(),
                                    directory: runtime.locator.optional(BankDirectory.self))
        } catch {
            console.error(error.description)
            return .cancelled
        }
        console.say(Terminal.bold(navigation.breadcrumb))
        for line in module.review {
            let text = "  \(line.caption): \(line.value)"
            console.say(line.prominent ? Terminal.bold(text) : Terminal.dim(text))
        }
        while true {
            console.completions = { _, word in ["cancel"].filter { $0.hasPrefix(word) } }
            let input = console.read("One-time code (6 digits, cancel returns to the form)> ")
            console.completions = { _, _ in [] }
            guard case .line(let raw) = input else { return .cancelled }
            let code = raw.trimmingCharacters(in: .whitespaces)
            if code.lowercased() == "cancel" || code.isEmpty { return .cancelled }
            do {
                return .done(Self.receipt(try module.sign(code: code)))
            } catch {
                console.error(error.description)
                if case .code(let codeError) = error, "\(codeError)".contains("locked") { return .cancelled }
            }
        }
    }

    static func receipt(_ outcome: Outcome) -> String {
        switch outcome {
        case .posted(let receipt):
            let posting = receipt.posting
            return """
            \(Terminal.green("posted")) — journal entry \(receipt.sequence)
              \(posting.debit) → \(posting.credit): \(Amount.text(posting.amount, currency: posting.currency)) \(posting.currency)
              balance of \(posting.debit): \(Amount.text(receipt.debitBalance, currency: posting.currency)) \(posting.currency)
            """
        case .acknowledged(_, let sequence):
            return "\(Terminal.green("accepted")) by the bank — journal entry \(sequence)"
        case .rejected(_, let sequence, let reason):
            return "\(Terminal.red("rejected")): \(reason.message) — journal entry \(sequence)"
        }
    }
}
