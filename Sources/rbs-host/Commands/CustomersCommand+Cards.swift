import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

extension CustomersCommand {
    /// `customers add-card NAME --number PAN [--account NUMBER]`: the bank issues a card to a customer.
    struct AddCard: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-card",
            abstract: "Issue a card to a customer, on one of their accounts; only its masked number is kept.",
            discussion: """
                The card starts active. Only the customer (any of their users) can block or unblock it, with the card.block
                operation; the core refuses anyone else's document. The full number is checked (scheme, length, Luhn) and
                never stored: the ledger keeps the first six and last four digits.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The customer's name.") var name: String
        @Option(help: "The card number (PAN), digits optionally in groups of four.") var number: String
        @Option(help: "The customer's account the card draws on (default: their first account).") var account: String?
        @Flag(help: "Print the card as {id, account, masked, lastFour, scheme, state, ...}.") var json = false

        func run() throws {
            try CustomersText.reporting(global.language) {
                let ledger = try global.openLedger()
                guard let customer = try ledger.customers.customer(named: name) else { throw CustomerError.unknown(name) }
                let account = try account ?? ledger.customers.accounts(of: customer).first?.number ?? ""
                let card = try ledger.issueCard(to: name, account: account, number: number)
                if json { JSONOutput.print(card); return }
                print("card \(card.id) issued to \(name): \(card.masked) (\(card.scheme)) on account \(card.account), active")
            }
        }
    }

    /// `customers cards NAME`: a customer's cards with their states.
    struct Cards: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "cards", abstract: "A customer's cards, with their states.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The customer's name.") var name: String
        @Flag(help: "Print [{id, account, masked, lastFour, scheme, state, blockReason, issuedAtMilliseconds, changedAtMilliseconds, changedBySequence}].")
        var json = false

        func run() throws {
            try CustomersText.reporting(global.language) {
                let ledger = try global.openLedger()
                let cards = try ledger.cards(ofCustomer: name)
                if json { JSONOutput.print(cards); return }
                guard !cards.isEmpty else { print("\(name) has no cards (issue one with `rbs-host customers add-card`)."); return }
                let format = Date.ISO8601FormatStyle(timeZone: .current).year().month().day().time(includingFractionalSeconds: false)
                var table = Table(header: ["id", "card", "account", "state", "reason", "changed", "entry"])
                table.rows = cards.map {
                    [String($0.id), $0.masked, $0.account, $0.state, $0.blockReason ?? "—",
                     $0.changedAtMilliseconds.map { Timestamp.date(milliseconds: $0).formatted(format) } ?? "—",
                     $0.changedBySequence.map { "#\($0)" } ?? "—"]
                }
                print(table.render())
            }
        }
    }
}
