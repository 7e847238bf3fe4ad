import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

extension CustomersCommand {
    /// `customers mandate NAME ACCOUNT --code CODE`: the customer lets this host's signer debit one of their accounts.
    struct GrantMandate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mandate",
            abstract: "Let this host's signer debit one of a customer's accounts; the customer consents with their one-time code.",
            discussion: """
                Without a mandate the core refuses any debit of a customer's account signed with this host's key, whatever
                front end built the document. With --revoke the mandate ends (no code needed: it only takes a right away).
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The customer's name.") var name: String
        @Argument(help: "The customer's account number.") var account: String
        @Option(help: "The customer's current one-time code: their consent.") var code: String?
        @Flag(help: "End the mandate instead.") var revoke = false

        func validate() throws {
            if revoke, code != nil { throw ValidationError("--revoke takes no --code") }
            if !revoke, code == nil { throw ValidationError("granting a mandate needs the customer's one-time code: give --code CODE") }
        }

        func run() throws {
            try CustomersText.reporting(global.language) {
                let ledger = try global.openLedger()
                let host = try ledger.keys.load()
                if revoke {
                    try ledger.revokeMandate(account: account, from: host.keyId)
                    print("mandate on \(account) revoked: \(host.name) can no longer debit it")
                    return
                }
                guard let credentials = try ledger.customers.credentials(named: name) else { throw CustomerError.unknown(name) }
                try ledger.grantMandate(account: account, of: credentials, code: code ?? "", to: host.keyId, keyName: host.name)
                print("mandate granted: \(host.name) (key \(host.keyId)) may debit \(name)'s account \(account) until it is revoked")
            }
        }
    }

    /// `customers mandates NAME`: the mandates on a customer's accounts, live and revoked.
    struct Mandates: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "mandates", abstract: "The mandates on a customer's accounts.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The customer's name.") var name: String
        @Flag(help: "Print [{number, keyId, keyName, grantedAtMilliseconds, revokedAtMilliseconds}].") var json = false

        func run() throws {
            try CustomersText.reporting(global.language) {
                let ledger = try global.openLedger()
                guard let customer = try ledger.customers.customer(named: name) else { throw CustomerError.unknown(name) }
                let mandates = try ledger.mandates(of: customer)
                if json { JSONOutput.print(mandates); return }
                guard !mandates.isEmpty else { print("No mandates on \(name)'s accounts."); return }
                let format = Date.ISO8601FormatStyle(timeZone: .current).year().month().day().time(includingFractionalSeconds: false)
                var table = Table(header: ["ACCOUNT", "SIGNER", "KEY", "GRANTED", "REVOKED"])
                table.rows = mandates.map {
                    [$0.number, $0.keyName, $0.keyId, Timestamp.date(milliseconds: $0.grantedAtMilliseconds).formatted(format),
                     $0.revokedAtMilliseconds.map { Timestamp.date(milliseconds: $0).formatted(format) } ?? "—"]
                }
                print(table.render())
            }
        }
    }
}
