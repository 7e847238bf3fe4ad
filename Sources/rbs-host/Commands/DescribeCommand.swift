import ArgumentParser
import Foundation
import RBSCore

/// `describe --json`: the state of a form after committing values as a person would.
struct FormDescription: Encodable {
    struct Atom: Encodable {
        var id: String
        var kind: String
        var caption: String
        var visible: Bool
        var value: String?
        var error: String?
        /// An enum's options, so a script can choose by value or title without guessing.
        var options: [Option]?
        /// An account picker's offered accounts, with the list number that names each for the whole run.
        var accounts: [OfferedAccount]?
        /// An amount's currency now: the chosen debit account's when the amount follows it (rbs.amount-currency/1).
        var currency: String? = nil

        private enum CodingKeys: String, CodingKey { case id, kind, caption, visible, value, error, options, accounts, currency }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(kind, forKey: .kind)
            try container.encode(caption, forKey: .caption)
            try container.encode(visible, forKey: .visible)
            try container.encode(value, forKey: .value)
            try container.encode(error, forKey: .error)
            try container.encodeIfPresent(options, forKey: .options)
            try container.encodeIfPresent(accounts, forKey: .accounts)
            try container.encodeIfPresent(currency, forKey: .currency)
        }
    }

    struct Option: Encodable {
        var value: String
        var title: String
    }

    struct OfferedAccount: Encodable {
        /// The list number (`--set ID=N` picks it; the same account has the same number in every picker).
        var position: Int
        var number: String
        var title: String
        var balance: String
        var currency: String
        var blocked: Bool
    }

    var operation: String
    var atoms: [Atom]
    var ready: Bool
    var formError: String?

    private enum CodingKeys: String, CodingKey { case operation, atoms, ready, formError }

    /// `formError` is always present (null when the form has none), like every atom's `error`.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(operation, forKey: .operation)
        try container.encode(atoms, forKey: .atoms)
        try container.encode(ready, forKey: .ready)
        try container.encode(formError, forKey: .formError)
    }

    /// - Parameter refused: values the form could not take at all (a hidden atom, a label), by atom id.
    init(_ session: FormSession, refused: [String: String] = [:]) {
        operation = session.operation.id
        atoms = session.atoms.map { state in
            Atom(id: state.id, kind: state.kind.description, caption: state.caption, visible: state.visible,
                 value: state.value.isEmpty ? nil : state.value, error: refused[state.id] ?? state.error,
                 options: state.kind == .enumeration ? state.descriptor.options.map { Option(value: $0.value, title: $0.title) } : nil,
                 accounts: state.kind == .account ? session.offeredAccounts(for: state.id).map {
                     OfferedAccount(position: $0.number, number: $0.account.number, title: $0.account.title,
                                    balance: $0.account.balance.plain,
                                    currency: $0.account.currency, blocked: $0.account.blocked)
                 } : nil,
                 currency: state.kind == .input && state.descriptor.inputType == .amount ? state.descriptor.currency : nil)
        }
        ready = FormVerdict(session, refused: refused).ready
        formError = session.formError
    }
}

/// Whether a described form could be submitted, and why not: one verdict that `describe`'s text, its JSON (`ready`)
/// and its exit status all come from, so they never disagree with each other or with `run`.
struct FormVerdict {
    /// What stands between the form and a submit: the values the form refused (by atom), then what the form itself
    /// needs (``FormSession/attention()``: the run ended by a plugin fault first, then required and invalid atoms).
    let reasons: [AtomIssue]
    /// Why the plugin's runtime ended the run, when it did: the form cannot be submitted at all.
    let fault: String?

    init(_ session: FormSession, refused: [String: String]) {
        // A commit the fault refused is said once, as the fault.
        let refusals = refused.sorted { $0.key < $1.key }.filter { $0.value != session.fault }
            .map { AtomIssue(atom: $0.key, message: $0.value) }
        let attention = session.attention().filter { issue in !refusals.contains { $0.atom != nil && $0.atom == issue.atom } }
        reasons = refusals + attention
        fault = session.fault
    }

    var ready: Bool { reasons.isEmpty }

    /// "ready to submit", or "not ready: amount: …; destBic: …", in `language`.
    func text(_ language: HostLanguage) -> String {
        ready ? HostMessage.Report.readyToSubmit.text(language)
              : HostMessage.Report.notReady(reasons.map { ($0.atom.map { "\($0): " } ?? "") + $0.message }.joined(separator: "; "))
                  .text(language)
    }
}

/// `ID=VALUE` from the command line.
struct Assignment {
    var id: String
    var value: String

    init(id: String, value: String) {
        self.id = id
        self.value = value
    }

    init(parsing text: String) throws(ValidationError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw ValidationError("--set \(text): expected ID=VALUE, e.g. --set destBic=044525225")
        }
        id = String(text[..<equals]).trimmingCharacters(in: .whitespaces)
        value = String(text[text.index(after: equals)...])
        guard !id.isEmpty else { throw ValidationError("--set \(text): the atom id before '=' is empty") }
    }
}

struct DescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Fill an operation's form without the REPL and print its state.",
        discussion: "Values are committed in the order given, as a person would; a bad value is an error on its atom.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The operation id (see `list`).") var operation: String
    @Option(name: .customLong("set"), help: ArgumentHelp(
        "Commit VALUE to atom ID. An enum takes its option's value or title; an account picker its list number or the account number; a date ДД.ММ.ГГГГ or YYYY-MM-DD.",
        valueName: "ID=VALUE"))
    var assignments: [String] = []
    @Flag(help: "Print {operation, atoms: [{id, kind, caption, visible, value, error, options?, accounts?, currency?}], ready}.") var json = false

    func run() throws {
        let runtime = try global.makeRuntime(runs: true)
        Listing.printFailures(runtime.registry, language: global.language)
        let parsed = try assignments.map(Assignment.init(parsing:))
        // A missing, replaced or damaged ledger is said as itself, not as "no account can be chosen here".
        do { _ = try runtime.ledger() } catch {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
        let session: FormSession
        do { session = try runtime.open(operation) } catch {
            Terminal.error(HostMessage.describe(error, global.language, listing: "rbs-host list"))
            // An operation no plugin offers is a usage error (2); a plugin whose create() failed or whose worker
            // died ended the run (1), as a fault later in the form does.
            if case .unknownOperation = error { throw ExitCode(2) }
            throw ExitCode.failure
        }
        defer { session.close() }
        session.language = global.language
        var refused: [String: String] = [:]
        let badBytes = RawArguments.refusedAssignments()
        for (id, message) in badBytes { refused[id] = message }
        for assignment in parsed where !badBytes.contains(where: { $0.id == assignment.id }) {
            do {
                try session.commit(assignment.id, text: assignment.value)
                refused[assignment.id] = nil
            } catch {
                switch error {
                case .unknownAtom:
                    Terminal.error(error.description)
                    throw ExitCode(2)
                case .invalid(_, let message):
                    refused[assignment.id] = message  // refused: the atom keeps its value, the message says why
                default:
                    refused[assignment.id] = session.describeCommitRefusal(error)
                }
            }
        }
        let verdict = FormVerdict(session, refused: refused)
        if json {
            JSONOutput.print(FormDescription(session, refused: refused))
        } else {
            print(FormText.render(session, verdict: verdict))
            for (id, why) in refused.sorted(by: { $0.key < $1.key }) {
                Terminal.error(why + " (\(id))", label: HostMessage.errorLabel.text(global.language))
            }
        }
        // A run its plugin's runtime ended is no form state but a failure: exit 1, in text as in JSON.
        if verdict.fault != nil { throw ExitCode.failure }
    }
}

/// A form as text: one line per atom.
enum FormText {
    static func render(_ session: FormSession, verdict: FormVerdict) -> String {
        func text(_ report: HostMessage.Report) -> String { report.text(session.language) }
        var table = Table(header: [text(.atomColumn), text(.kindColumn), text(.captionColumn), text(.valueColumn), text(.noteColumn)])
        for atom in session.atoms where atom.visible {
            table.rows.append([atom.id, atom.kind.description, atom.caption,
                               atom.descriptor.flags.contains(.secret) && !atom.value.isEmpty ? "••••"
                                   : atom.kind == .input && atom.descriptor.inputType == .amount && !atom.value.isEmpty
                                   ? Amount.shown(atom.value, currency: atom.descriptor.currency ?? "RUB", session.language) : atom.value,
                               atom.error.map { "⚠ " + $0 } ?? ""])
        }
        var lines = [Terminal.bold(session.operation.descriptor.title) + " (\(session.operation.id))", table.render()]
        if let formError = session.formError { lines.append("⚠ " + formError) }
        lines.append(verdict.text(session.language))
        return lines.joined(separator: "\n")
    }
}
