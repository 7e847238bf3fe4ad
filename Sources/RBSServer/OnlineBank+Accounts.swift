import Foundation
import RBSCore
import RBSLedger

/// What a customer sees of their own: the operations they may open, their accounts, cards and journal.
extension OnlineBank {
    /// The operations in service, titled in `language` where their plugins translate them (`rbs.texts/1`).
    func operations(language: HostLanguage = .en) -> [API.Operation] {
        runtime.registry.operations.map { $0.localized(language) }.map {
            API.Operation(id: $0.id, title: $0.descriptor.title, category: $0.descriptor.category, plugin: $0.pluginID,
                          pluginVersion: $0.pluginVersion, unavailable: $0.unavailable)
        }
    }

    func accounts(of customer: Customer) async throws(Problem) -> [API.AccountJSON] {
        let ledger = self.ledger
        do {
            return try await Self.blocking {
                try ledger.customers.accounts(of: customer).map {
                    API.AccountJSON(number: $0.number, title: $0.title, currency: $0.currency,
                                    balance: $0.balance.plain, blocked: $0.blocked)
                }
            }
        } catch {
            throw Self.storageProblem("the accounts could not be read", error)
        }
    }

    /// The customer's cards (those of the customer the user acts for), masked, oldest first.
    func cards(of customer: Customer) async throws(Problem) -> [Card] {
        let ledger = self.ledger
        do {
            return try await Self.blocking { try ledger.cards(of: .customer(customer.holderId)) }
        } catch {
            throw Self.storageProblem("the cards could not be read", error)
        }
    }

    /// The customer's journal entries `filter` takes (all of them by default), oldest first.
    func journal(of customer: Customer, matching filter: JournalFilter = JournalFilter()) async throws(Problem) -> [API.JournalLine] {
        let ledger = self.ledger
        do {
            return try await Self.blocking { try ledger.customers.journal(of: customer, matching: filter).map(Self.line) }
        } catch {
            throw Self.storageProblem("the journal could not be read", error)
        }
    }

    /// One journal entry as the API lists it: the posting's keys, and the document's operation, payee and purpose.
    static func line(_ entry: JournalEntry) -> API.JournalLine {
        let document = try? CanonicalEncoding.decode(entry.document)
        let payment = Payment.of(document)
        // A refused document has no posting: its money fields as signed (whatever the core found wrong with them).
        return API.JournalLine(sequence: entry.sequence, kind: entry.kind.rawValue, documentHash: entry.documentId,
                               recordedAt: iso(milliseconds: entry.recordedAtMilliseconds), debit: entry.debit,
                               credit: entry.credit, amount: entry.amount ?? document?.text(of: .amount),
                               currency: entry.currency ?? document?.text(of: .currency),
                               fee: payment?.fee?.plain, totalDebited: payment?.fee.map { _ in payment?.totalDebited.plain } ?? nil,
                               balanceAfter: entry.balanceAfter, reason: entry.reason, basket: entry.basketId,
                               operation: document?.operation, payee: document?.text(of: .payeeName), purpose: document?.text(of: .purpose))
    }
}
