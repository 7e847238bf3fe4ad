import Foundation
import RBSCore
import RBSLedger

extension REPL {
    /// `pending CUSTOMER [--json]`: the customer's documents awaiting a second signature.
    func pending(_ words: [String]) {
        let json = words.contains("--json")
        guard let name = words.first(where: { $0 != "--json" }) else {
            console.error("usage: pending CUSTOMER [--json]")
            return
        }
        do {
            let ledger = try runtime.ledger()
            guard let customer = try ledger.customers.customer(named: name) else { throw CustomerError.unknown(name) }
            let rows = try ledger.pendingSecondSignatures(of: customer).map(CustomersText.PendingRow.init)
            console.say(json ? JSONOutput.text(rows) : CustomersText.pendingTable(rows, customer: name, language: console.language, width: console.width))
        } catch {
            console.error(String(describing: error))
        }
    }

    /// `approve USER N` and `reject USER N REASON…`: shows the awaiting document, then asks for USER's one-time code
    /// (read as a secret, never kept in the history) and gives the second signature.
    func decide(_ words: [String], decline: Bool) {
        let reason = words.dropFirst(2).joined(separator: " ")
        guard words.count >= 2, let entry = Int64(words[1]), !decline || !reason.isEmpty else {
            console.error(decline ? "usage: reject USER N REASON" : "usage: approve USER N")
            return
        }
        do {
            let ledger = try runtime.ledger()
            guard let user = try ledger.customers.credentials(named: words[0]) else { throw CustomerError.unknown(words[0]) }
            if let pending = try ledger.pendingSecondSignatures(of: user.customer).first(where: { $0.entry.sequence == entry }) {
                let row = CustomersText.PendingRow(pending)
                let amount = row.amount.map { Amount.shown($0, currency: row.currency ?? "", console.language) } ?? ""
                console.say(Terminal.bold("  \(amount) → \(row.payee ?? "") \(row.credit ?? "")"))
                console.say("  \(row.purpose ?? "")\n  " + console.language.pick(
                    "signed by \(row.signedBy) at \(row.signedAt), document \(row.documentHash)",
                    "подписал \(row.signedBy) в \(row.signedAt), документ \(row.documentHash)"))
            }
            // An approval posts: a repeat of a payment posted in the last 24 hours is asked about first, as at signing.
            var confirmedDuplicate = false
            if !decline, let duplicate = try ledger.duplicate(approving: entry) {
                guard SignPresenter.confirmRepeat(SignModule.repeatNotice(duplicate.of, console.language), console: console) else {
                    console.say(Terminal.dim(console.text(.cancelledNothingPosted)))
                    return
                }
                confirmedDuplicate = true
            }
            let prompt = console.language.pick("\(user.customer.name)'s one-time code: ", "одноразовый код \(user.customer.name): ")
            guard case .line(let raw) = console.read(prompt, remember: false) else { return }
            let code = raw.trimmingCharacters(in: .whitespaces)
            guard !code.isEmpty, code.lowercased() != "cancel" else {
                console.say(Terminal.dim(console.text(.cancelledNothingPosted)))
                return
            }
            let outcome = try decline ? ledger.decline(entry: entry, reason: reason, code: code, as: user)
                : ledger.approve(entry: entry, code: code, as: user, confirmedDuplicate: confirmedDuplicate)
            guard let signed = try ledger.journal.entries().first(where: { $0.sequence == outcome.sequence }) else { return }
            console.say(RunText.render(RunReport(outcome: outcome, document: try CanonicalEncoding.decode(signed.document),
                                                 language: console.language), language: console.language))
        } catch let error as LedgerError {
            console.error(HostMessage.describe(error, console.language))
        } catch {
            console.error(String(describing: error))
        }
    }
}
