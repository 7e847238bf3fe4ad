import ArgumentParser
import Foundation
import RBSCore
import RBSLedger
import RBSMoney
import RBSServer

/// Two signers (maker–checker): more users per customer, the second-signer threshold, and the second signature.
extension CustomersCommand {
    struct AddUser: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-user",
            abstract: "Add another user to a customer: their own password, signing key and one-time-code secret, the customer's accounts.",
            discussion: """
                A new person who can sign for the customer's accounts: the customer consents with the current one-time
                code of the user named (--code). Prints the password (unless --password-stdin) and the otpauth:// URI
                for the new user's authenticator app, once.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The customer (the name of any of its users).") var customer: String
        @Argument(help: "The new user's login name (letters, digits, '.', '-', '_').") var user: String
        @Option(help: "The current one-time code of the user named as <customer>: the customer's consent.") var code: String
        @Flag(help: "Read the password from the first line of standard input instead of generating one.")
        var passwordStdin = false

        func run() throws {
            let password = try CustomersText.password(fromStandardInput: passwordStdin)
            try CustomersText.reporting(global.language) {
                let ledger = try global.openLedger()
                guard let credentials = try ledger.customers.credentials(named: customer) else { throw CustomerError.unknown(customer) }
                let record = try PasswordRecord.make(password: password)
                let (added, enrolment) = try ledger.customers.addUser(to: credentials, name: user, passwordRecord: record.text, code: code)
                print("User of customer \(customer):")
                print(CustomersText.added(added, enrolment: enrolment, accounts: try ledger.customers.accounts(of: added),
                                          password: passwordStdin ? nil : password))
            }
        }
    }

    struct Policy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "policy",
            abstract: "Show or set when a customer's payments need a second signer (another user of the customer).",
            discussion: """
                --second-signer-above "100000 RUB" (or 100000 RUB): payments in RUB above 100 000,00 need a second
                signer; set one per currency. Once any is set, a payment in a currency without one always needs the
                second signer (no exchange rate is assumed). --no-second-signer removes them all. A change takes the
                current one-time code of the user named (--code): the customer's consent.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The customer (the name of any of its users).") var customer: String
        @Option(name: .customLong("second-signer-above"), parsing: .upToNextOption,
                help: ArgumentHelp("The amount and currency above which a second signer is needed.", valueName: "AMOUNT CURRENCY"))
        var above: [String] = []
        @Flag(name: .customLong("no-second-signer"), help: "One user signs alone again, whatever the amount.")
        var none = false
        @Option(help: "The current one-time code of the user named as <customer> (to change the policy).") var code: String?
        @Flag(help: "Print {customer, users, secondSignerAbove: [{amount, currency}]}.") var json = false

        func validate() throws {
            if none, !above.isEmpty { throw ValidationError("give --second-signer-above or --no-second-signer, not both") }
            if (none || !above.isEmpty), code == nil {
                throw ValidationError("changing when a second signer is needed takes the customer's one-time code: give --code CODE")
            }
            if !none, above.isEmpty, code != nil { throw ValidationError("--code goes with a change (--second-signer-above or --no-second-signer)") }
        }

        func run() throws {
            try CustomersText.reporting(global.language) {
                let ledger = try global.openLedger()
                guard let credentials = try ledger.customers.credentials(named: customer) else { throw CustomerError.unknown(customer) }
                let found = credentials.customer
                if none {
                    let removed = try ledger.customers.secondSigner(of: found).keys.map { ($0, Decimal?.none) }
                    try ledger.customers.setSecondSigner(Dictionary(uniqueKeysWithValues: removed), of: credentials, code: code ?? "")
                } else if !above.isEmpty {
                    let (amount, currency) = try Self.threshold(above.joined(separator: " "))
                    try ledger.customers.setSecondSigner([currency: amount], of: credentials, code: code ?? "")
                }
                let report = CustomersText.PolicyReport(
                    customer: found, users: try ledger.customers.users(of: found).map(\.name),
                    thresholds: try ledger.customers.secondSigner(of: found))
                if json { JSONOutput.print(report) } else { print(report.text(global.language)) }
            }
        }

        /// "100000 RUB", "100 000,00 RUB": the amount as people write it, then the currency's ISO code.
        static func threshold(_ text: String) throws -> (Decimal, String) {
            var words = text.split(separator: " ").map(String.init)
            guard words.count >= 2, let code = words.popLast(), let currency = Currency(code: code.uppercased()) else {
                throw SecondSignatureError.invalidThreshold("give the amount and the currency, e.g. --second-signer-above 100000 RUB")
            }
            do {
                return (try AmountText.parse(words.joined(separator: " "), currency: currency, locale: .en).amount, currency.code)
            } catch {
                throw SecondSignatureError.invalidThreshold(error.description)
            }
        }
    }

    struct Pending: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pending", abstract: "The customer's documents awaiting a second signature.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The customer (the name of any of its users).") var customer: String
        @Flag(help: "Print [{journal, documentHash, signedAt, signedBy, operation, debit, credit, amount, currency, payee, purpose}].")
        var json = false

        func run() throws {
            try CustomersText.reporting(global.language) {
                let ledger = try global.openLedger()
                guard let found = try ledger.customers.customer(named: customer) else { throw CustomerError.unknown(customer) }
                let rows = try ledger.pendingSecondSignatures(of: found).map(CustomersText.PendingRow.init)
                if json { JSONOutput.print(rows) } else { print(CustomersText.pendingTable(rows, customer: customer, language: global.language, width: Terminal.columns)) }
            }
        }
    }

    struct Approve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "approve",
            abstract: "Sign journal entry N as the second signer (another user of the customer), with that user's one-time code.",
            discussion: "The core decides again now (balance, blocked accounts): the new entry is posted or rejected. Exit 0 only when posted.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The second signer's user name.") var user: String
        @Argument(help: "The awaiting journal entry's number (see `customers pending`).") var entry: Int64
        @Option(help: "The user's 6-digit one-time code.") var code: String
        @Flag(name: .customLong("confirm-duplicate"),
              help: "Approve even when the same payee, account, amount and purpose was posted in the last 24 hours.")
        var confirmDuplicate = false
        @Flag(help: "Print {status, journal, document, errors, posting} as run does.") var json = false

        func run() throws {
            try CustomersText.decide(global: global, user: user, entry: entry, code: code, reason: nil,
                                     confirmDuplicate: confirmDuplicate, json: json)
        }
    }

    struct Reject: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reject",
            abstract: "Decline journal entry N as the second signer, with a reason and that user's one-time code; nothing is posted.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The second signer's user name.") var user: String
        @Argument(help: "The awaiting journal entry's number (see `customers pending`).") var entry: Int64
        @Option(help: "Why the document is declined (journaled).") var reason: String
        @Option(help: "The user's 6-digit one-time code.") var code: String
        @Flag(help: "Print {status, journal, document, errors} as run does.") var json = false

        func run() throws {
            try CustomersText.decide(global: global, user: user, entry: entry, code: code, reason: reason, json: json)
        }
    }
}

extension CustomersText {
    /// The password of a new login: read from standard input's first line, or generated.
    static func password(fromStandardInput: Bool) throws -> String {
        guard fromStandardInput else { return generatedPassword() }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            Terminal.error("--password-stdin: standard input had no password line")
            throw ExitCode.failure
        }
        return line
    }

    /// `customers policy`'s answer.
    struct PolicyReport: Encodable {
        struct Threshold: Encodable {
            var amount: String
            var currency: String
        }

        var customer: String
        var users: [String]
        var secondSignerAbove: [Threshold]

        init(customer: Customer, users: [String], thresholds: [String: Decimal]) {
            self.customer = users.first ?? customer.name
            self.users = users
            secondSignerAbove = thresholds.sorted { $0.key < $1.key }.map { Threshold(amount: Amount.text($0.value, currency: $0.key), currency: $0.key) }
        }

        func text(_ language: HostLanguage = .en) -> String {
            let ru = language == .ru
            var lines = [(ru ? "Клиент:          " : "Customer:      ") + customer,
                         (ru ? "Пользователи:    " : "Users:         ") + users.joined(separator: ", ")]
            if secondSignerAbove.isEmpty {
                lines.append(ru ? "Вторая подпись:  не нужна (подписывает один пользователь)" : "Second signer: never (one user signs alone)")
            } else {
                let above = secondSignerAbove.map { Amount.shown($0.amount, currency: $0.currency, language) }.joined(separator: ", ")
                lines.append(ru ? "Вторая подпись:  свыше \(above); в любой другой валюте всегда"
                                : "Second signer: above \(above); in any other currency always")
            }
            return lines.joined(separator: "\n")
        }
    }

    /// One document awaiting a second signature, as `customers pending --json` prints it.
    struct PendingRow: Encodable {
        var journal: Int64
        var documentHash: String
        var signedAt: String
        var signedBy: String
        var operation: String
        var debit: String?
        var credit: String?
        var amount: String?
        var currency: String?
        var payee: String?
        var purpose: String?
        /// The fee and the amount plus the fee (what a threshold is compared with), when the document has a fee.
        var fee: String?
        var totalDebited: String?
        /// The journal entry of a payment posted in the last 24 hours that this one repeats.
        var duplicate: Int64?

        init(_ pending: PendingSignature) {
            journal = pending.entry.sequence
            documentHash = pending.entry.documentId
            signedAt = pending.signedAt
            signedBy = pending.signedBy
            operation = pending.document.operation
            debit = pending.entry.debit
            credit = pending.entry.credit
            amount = pending.entry.amount
            currency = pending.entry.currency
            let payment = Payment.of(pending.document)
            payee = payment?.payee.name
            purpose = payment?.purpose
            fee = payment?.fee?.plain
            totalDebited = payment?.fee.map { _ in payment?.totalDebited.plain } ?? nil
            duplicate = pending.duplicate?.sequence
        }
    }

    /// The awaiting documents for people, amounts grouped as `language` writes them.
    static func pendingTable(_ rows: [PendingRow], customer: String, language: HostLanguage = .en, width: Int? = nil) -> String {
        guard !rows.isEmpty else {
            return language.pick("Nothing awaits a second signature for \(customer).", "У клиента \(customer) ничто не ждёт второй подписи.")
        }
        // The fee and the total debited (what the threshold was compared with) when there is a fee; a repeat of a payment
        // posted in the last 24 hours, which the approval asks to confirm.
        let fees = rows.contains { $0.fee != nil }, repeats = rows.contains { $0.duplicate != nil }
        var header = language == .ru ? ["№", "ПОДПИСАЛ", "СУММА"] : ["N", "SIGNED BY", "AMOUNT"]
        if fees { header += language == .ru ? ["КОМИССИЯ", "ИТОГО"] : ["FEE", "TOTAL"] }
        header += language == .ru ? ["ПОЛУЧАТЕЛЬ", "СЧЁТ", "НАЗНАЧЕНИЕ"] : ["PAYEE", "ACCOUNT", "PURPOSE"]
        if repeats { header.append(language == .ru ? "ПОВТОРЯЕТ" : "REPEATS") }
        var table = Table(header: header)
        table.rightAligned = fees ? [0, 2, 3, 4] : [0, 2]
        // The payee's account the checker compares must never be broken across lines: stacked on a narrow terminal.
        table.labelledWhenStacked = true
        for row in rows {
            let shown = { (value: String?) in value.map { Amount.shown($0, currency: row.currency ?? "", language) } ?? "" }
            var cells = [String(row.journal), row.signedBy, shown(row.amount)]
            if fees { cells += [shown(row.fee), shown(row.totalDebited)] }
            cells += [row.payee ?? "", row.credit ?? "", row.purpose ?? ""]
            if repeats { cells.append(row.duplicate.map { language.pick("entry \($0)", "запись \($0)") } ?? "") }
            table.rows.append(cells)
        }
        return table.render(width: width)
    }

    /// `customers approve|reject`: the second signature of `user`, reported as `run` reports.
    static func decide(global: GlobalOptions, user: String, entry: Int64, code: String, reason: String?,
                       confirmDuplicate: Bool = false, json: Bool) throws {
        let report: RunReport
        do {
            // The host's clock (RBS_CLOCK in tests), which the code is checked against.
            let ledger = try global.openLedger()
            guard let credentials = try ledger.customers.credentials(named: user) else { throw CustomerError.unknown(user) }
            let outcome: Outcome
            if let reason {
                outcome = try ledger.decline(entry: entry, reason: reason, code: code, as: credentials)
            } else {
                outcome = try ledger.approve(entry: entry, code: code, as: credentials, confirmedDuplicate: confirmDuplicate)
            }
            guard let row = try ledger.journal.entries().first(where: { $0.sequence == outcome.sequence }) else {
                throw LedgerError.unreadableEntry(sequence: outcome.sequence, detail: "it was just written but cannot be read")
            }
            report = RunReport(outcome: outcome, document: try CanonicalEncoding.decode(row.document), language: global.language)
        } catch {
            // A repeat the second signer did not confirm says how to confirm it here.
            let message = if case LedgerError.unconfirmedDuplicate(let duplicate) = error {
                SignModule.repeatNotice(duplicate.of, global.language) + global.language.pick(
                    "; nothing was signed or posted — approve it again with --confirm-duplicate to post it anyway",
                    "; ничего не подписано и не проведено — чтобы провести его всё же, одобрите его снова с --confirm-duplicate")
            } else {
                HostMessage.describe(any: error, global.language)
            }
            report = RunReport(status: .invalid, journal: nil, document: nil, errors: [AtomIssue(atom: nil, message: message)])
        }
        if json { JSONOutput.print(report) } else { print(RunText.render(report, language: global.language)) }
        if report.status != .posted && !(reason != nil && report.status == .rejected && report.journal != nil) { throw ExitCode.failure }
    }
}
