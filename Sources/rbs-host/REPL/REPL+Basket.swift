import Foundation
import RBSCore
import RBSLedger
import RBSMoney

extension REPL {
    /// `basket [show]`, `basket add [OP|NUMBER|@TEMPLATE [ID=VALUE ...]]`, `basket remove N`, `basket clear`,
    /// `basket sign`: collect filled forms, then review them together and sign them with one code.
    func basket(_ words: [String]) {
        switch words.first?.lowercased() {
        case nil, "show", "list": console.say(basketListing())
        case "add":
            if words.count > 1 { run(Array(words.dropFirst()), collect: addToBasket) } else { addLastForm() }
        case "remove", "rm":
            guard words.count == 2, let position = Int(words[1]) else { return console.error(console.text(.basketUsage)) }
            guard (1...max(basket.count, 1)).contains(position), position <= basket.count else {
                return console.error(console.text(.basketNoSuchDocument(position, count: basket.count)))
            }
            basket.remove(at: position - 1)
            console.say(console.text(.basketRemoved(position, left: basket.count)))
        case "clear":
            let count = basket.count
            basket.removeAll()
            console.say(console.text(.basketCleared(count)))
        case "sign":
            guard !basket.isEmpty else { return console.error(console.text(.basketEmpty)) }
            let presenter = BasketPresenter(drafts: basket, runtime: runtime, console: console, navigation: navigation)
            switch presenter.run() {
            case .done(let report):
                // Signed: every document is journaled (posted or rejected); the basket starts empty again.
                basket.removeAll()
                console.say(report)
            case .cancelled, .refused: console.say(Terminal.dim(console.text(.cancelledNothingPosted)))
            case .failed(let why): console.error(why)
            }
        default: console.error(console.text(.basketUsage))
        }
    }

    /// The basket's documents as a table (number, operation, amount, payee, payee's account) and the totals.
    func basketListing() -> String {
        guard !basket.isEmpty else { return console.text(.basketEmpty) }
        func text(_ report: HostMessage.Report) -> String { console.text(.report(report)) }
        var table = Table(header: [text(.numberColumn), text(.operationColumn), text(.amountColumn), text(.payeeColumn),
                                   text(.payeeAccountColumn)])
        var totals: [String: (sum: Decimal, documents: Int)] = [:]
        for (index, draft) in basket.enumerated() {
            func value(_ role: DocumentFieldRole) -> String {
                draft.fields.first { draft.presentation(of: $0.key).role == role && !$0.value.isEmpty }?.value ?? ""
            }
            let amount = value(.amount), currency = value(.currency)
            if let decimal = DecimalText.parse(amount) {
                totals[currency, default: (0, 0)].sum += decimal
                totals[currency, default: (0, 0)].documents += 1
            }
            table.rows.append([String(index + 1), draft.operation,
                               amount.isEmpty ? "" : Amount.shown(amount, currency: currency, console.language),
                               value(.payee), value(.payeeAccount)])
        }
        var lines = [table.render()]
        for (currency, total) in totals.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(console.text(.basketTotal(documents: total.documents))): "
                + Amount.shown("\(total.sum)", currency: currency, console.language))
        }
        return lines.joined(separator: "\n")
    }

    /// Puts a submitted draft into the basket when the core would take it now (a document it refuses is never
    /// collected, as it is never offered for signing).
    private func addToBasket(_ draft: DocumentDraft) -> ModuleOutput {
        do {
            let ledger = try runtime.ledger()
            let document = try ledger.draft(operation: draft.operation, plugin: draft.plugin, pluginVersion: draft.pluginVersion,
                                            fields: draft.fields.map { DocumentField($0.key, $0.value) })
            if let refusal = try ledger.bank.validate(document) {
                console.error(HostMessage.wouldRefuse(refusal, console.language))
                return .refused
            }
            // The same payment again within 24 hours goes in only when the person says so, as when signed alone.
            if let duplicate = try ledger.recentDuplicate(of: document, keyId: document.keyId),
               !SignPresenter.confirmDuplicate(duplicate, console: console) {
                return .cancelled
            }
        } catch {
            return .failed(String(describing: error))
        }
        basket.append(draft)
        return .done(console.text(.basketAdded(position: basket.count, count: basket.count)))
    }

    /// `basket add` alone: the form filled last (not signed), filled again from its values and put in the basket.
    private func addLastForm() {
        guard let form = lastForm, !lastFormSigned else { return console.error(console.text(.basketNothingFilled)) }
        switch FormFill.draft(runtime: runtime, operation: form.operation,
                              assignments: form.values.map { Assignment(id: $0.id, value: $0.value) }) {
        case .success(let draft):
            switch addToBasket(draft) {
            case .done(let message): console.say(message)
            case .failed(let why): console.error(why)
            case .cancelled, .refused: break
            }
        case .failure(let refused):
            // Each field by its caption, once, as the form names it.
            for text in refused.named { console.error(text) }
        }
    }
}
