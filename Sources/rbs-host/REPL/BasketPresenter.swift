import Foundation
import RBSCore
import RBSLedger

/// The sign step of a signing basket, presented over the REPL: every document's amount and payee (and what the
/// core would refuse now), the total per currency, the basket id and (OCRA) the basket's challenge — then ONE code.
/// A wrong code asks again while attempts are left; cancelling leaves the basket as it was, nothing signed.
final class BasketPresenter {
    private let drafts: [DocumentDraft]
    private let runtime: Runtime
    private let console: Console
    private let navigation: Navigation

    init(drafts: [DocumentDraft], runtime: Runtime, console: Console, navigation: Navigation) {
        self.drafts = drafts
        self.runtime = runtime
        self.console = console
        self.navigation = navigation
    }

    func run() -> ModuleOutput {
        navigation.enter(console.text(.basketId))
        navigation.enter(console.text(.sign))
        defer {
            navigation.leave()
            navigation.leave()
        }
        let module: BasketModule
        let ledger: Ledger
        do {
            ledger = try runtime.ledger()
            module = try BasketModule(drafts: drafts, ledger: ledger, directory: runtime.locator.optional(BankDirectory.self))
        } catch {
            console.error(String(describing: error))
            return .cancelled
        }
        if module.allRefused {
            for document in module.documents(in: console.language) {
                if let refusal = document.refusal { console.error("\(document.position). " + HostMessage.wouldRefuse(refusal, console.language)) }
            }
            console.error(console.text(.basketAllRefused))
            return .refused
        }
        console.say(Terminal.bold(navigation.breadcrumb))
        for line in BasketText.review(module, language: console.language) { console.say(line) }
        // A repeat of a posted payment or of another document of this basket is signed only when the person says so.
        let repeats = module.repeats.enumerated().compactMap { index, of in of.map { (position: index + 1, of: $0) } }
        for repeated in repeats
        where !SignPresenter.confirmRepeat("\(repeated.position). " + SignModule.repeatNotice(repeated.of, console.language), console: console) {
            return .cancelled
        }
        let prompt = module.challenge.map { console.text(.basketResponsePrompt(OCRASuite.grouped($0))) } ?? console.text(.basketCodePrompt)
        return SignPresenter.askForCode(console, prompt: prompt) { code throws(LedgerError) in
            let outcome = try module.sign(code: code, confirmDuplicate: !repeats.isEmpty)
            return BasketText.render(BasketReport(outcome: outcome, documents: module.basket.documents, ledger: ledger,
                                                 language: console.language), language: console.language)
        }
    }
}
