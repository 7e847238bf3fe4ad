import ArgumentParser
import Foundation
import RBSCore
import RBSLedger
import RBSServer

/// `rbs-host customers add|list|remove|code`: the customers who log in to `rbs-host serve`.
struct CustomersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "customers", abstract: "Add, list or remove the customers of `rbs-host serve`.",
        subcommands: [Add.self, AddUser.self, List.self, Remove.self, Code.self, Policy.self, Pending.self, Approve.self, Reject.self,
                      GrantMandate.self, Mandates.self, AddCard.self, Cards.self],
        defaultSubcommand: List.self)

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Create a customer: accounts in the embedded core, a login password, a signing key and a one-time-code secret.",
            discussion: "Prints the password (unless --password-stdin) and the otpauth:// URI for the authenticator app, once.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The customer's login name (letters, digits, '.', '-', '_').") var name: String
        @Flag(help: "Read the password from the first line of standard input instead of generating one.")
        var passwordStdin = false

        func run() throws {
            let password = try CustomersText.password(fromStandardInput: passwordStdin)
            try CustomersText.reporting(global.language) {
                // The first customer of a fresh data folder is its documented first start, as `keys init` is.
                let data = global.paths.data, location = global.paths.database
                let ledger = Ledger.isFresh(data, location: location)
                    ? try Ledger.create(dataDirectory: data, location: location).ledger
                    : try Ledger(dataDirectory: data, location: location)
                let record = try PasswordRecord.make(password: password)
                let (customer, enrolment) = try ledger.customers.add(name: name, passwordRecord: record.text)
                let accounts = try ledger.customers.accounts(of: customer)
                print(CustomersText.added(customer, enrolment: enrolment, accounts: accounts,
                                          password: passwordStdin ? nil : password))
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The customers, with their accounts.")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print [{name, userOf, keyId, holderId, accounts: [{number, currency, balance}]}] (userOf: the customer a user added by add-user belongs to; holderId: the bank's id of the customer whose accounts these are, which a staged rollout's share is chosen by).")
        var json = false

        func run() throws {
            try CustomersText.reporting(global.language) {
                let ledger = try global.openLedger()
                let customers = try ledger.customers.list()
                var rows: [CustomersText.Row] = []
                for customer in customers {
                    let holder = customer.memberOf.flatMap { id in customers.first { $0.id == id }?.name }
                    rows.append(CustomersText.Row(name: customer.name, userOf: holder, keyId: customer.keyId, holderId: customer.holderId,
                                                  accounts: try ledger.customers.accounts(of: customer).map {
                                                      .init(number: $0.number, currency: $0.currency,
                                                            balance: $0.balance.plain)
                                                  }))
                }
                if json { JSONOutput.print(rows) } else { print(CustomersText.table(rows, global.language)) }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a customer's login and signing key, and its users'; their accounts are blocked, the journal keeps their entries.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The customer's name.") var name: String

        func run() throws {
            try CustomersText.reporting(global.language) {
                let users = try global.openLedger().customers.remove(name: name)
                print("removed \(name): login and signing key deleted, accounts blocked, journal entries kept"
                      + (users.isEmpty ? "" : "; its users removed with it: " + users.joined(separator: ", ")))
            }
        }
    }

    struct Code: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "code", abstract: "The customer's current one-time code, as their authenticator app shows it (development).",
            discussion: "Anyone who can read the data directory can do this: keep it private (it is created 0700).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The customer's name.") var name: String

        func run() throws {
            try CustomersText.reporting(global.language) {
                print(try global.openLedger().customers.code(for: name, at: HostClock.current.now))
            }
        }
    }
}

enum CustomersText {
    /// Runs `body`; an error is one line on standard error (what went wrong and what to do) and exit status 1.
    static func reporting(_ language: HostLanguage = .en, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Terminal.error(HostMessage.describe(any: error, language))
            throw ExitCode.failure
        }
    }

    struct Row: Encodable {
        struct AccountRow: Encodable {
            var number: String
            var currency: String
            var balance: String
        }

        var name: String
        /// The customer whose user this login is (`customers add-user`); nil for a customer's first user.
        var userOf: String?
        var keyId: String
        var holderId: Int64
        var accounts: [AccountRow]
    }

    /// 16 characters from an alphabet without look-alikes (about 80 bits).
    static func generatedPassword() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRTUVWXY3479")
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    static func added(_ customer: Customer, enrolment: Enrolment, accounts: [Account], password: String?) -> String {
        var lines = ["Customer:   \(customer.name)"]
        if let password { lines.append("Password:   \(password)   (shown once; give it to the customer)") }
        lines.append("Key id:     \(customer.keyId)")
        for (index, account) in accounts.enumerated() {
            lines.append("\(index == 0 ? "Accounts:  " : "           ") \(account.number) \(account.balance.plain) \(account.currency)  \(account.title)")
        }
        if let uri = enrolment.uri {
            lines.append("Add this to the customer's authenticator app (TOTP, SHA1, 6 digits, 30 s):")
            lines.append(uri)
        }
        return lines.joined(separator: "\n")
    }

    /// `customers list` in the operator's language (`--lang`): the headings, a user's line, the amounts.
    static func table(_ rows: [Row], _ language: HostLanguage = .en) -> String {
        guard !rows.isEmpty else {
            return language.pick("No customers: add one with `rbs-host customers add NAME`.",
                                 "Клиентов нет: добавьте клиента командой `rbs-host customers add ИМЯ`.")
        }
        var table = Table(header: language == .ru ? ["КЛИЕНТ", "КЛЮЧ", "СЧЕТА"] : ["CUSTOMER", "KEY ID", "ACCOUNTS"])
        for row in rows {
            let name = row.userOf.map { language.pick("\(row.name) (user of \($0))", "\(row.name) (пользователь \($0))") } ?? row.name
            table.rows.append([name, row.keyId, row.accounts.map { "\($0.number) \(Amount.shown($0.balance, currency: $0.currency, language))" }.joined(separator: ", ")])
        }
        return table.render()
    }
}
