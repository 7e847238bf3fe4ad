import Foundation
import RBSCore
import RBSLedger
import RBSLineEditor

/// The root module a person talks to (seed 002's Root): reads commands, opens operations as modules, and prints
/// one-line notices (hot reloads) between commands. On a terminal it edits lines with libedit, keeps history in the
/// data directory and completes commands, operation ids and list numbers; from a pipe it reads commands line by
/// line and prints no prompts, so a script can drive it.
/// Confined to the REPL thread once started; only `notify` is called from other threads (it goes through the
/// console's one locked output path).
final class REPL: @unchecked Sendable {
    let runtime: Runtime
    let console: Console
    let navigation = Navigation()
    /// The values of the form filled last (posted, refused or cancelled): what `template save NAME` keeps.
    var lastForm: FormTemplate?
    /// Whether the form filled last was signed and posted (then `basket add` does not add it again).
    var lastFormSigned = false
    /// The signing basket being collected (`basket add`), in order: signed together by `basket sign`.
    var basket: [DocumentDraft] = []

    init(runtime: Runtime, language: HostLanguage = .en) {
        self.runtime = runtime
        console = Console(historyFile: runtime.paths.data.appendingPathComponent("history"), language: language)
        if let log = runtime.locator.optional((any HostLog).self) as? StandardErrorLog { console.showWarnings(of: log) }
    }

    /// One REPL command: its name and the other words that call it, its usage line, what it does, and how its
    /// arguments are completed. What each does in words is in the message catalogue (`HostMessage.commandSummary`).
    struct Command: Sendable {
        let name: String
        var aliases: [String] = []
        let usage: String
        /// Runs the command with its arguments; returns false to quit.
        let perform: @Sendable (REPL, [String]) -> Bool
        /// The completions of `word`, the last word of `line` (whose words are `words`, the command's first).
        var complete: (@Sendable (REPL, _ words: [String], _ line: String, _ word: String) -> [String])? = nil

        /// Whether the command takes the rest of its line as typed, as its one argument, instead of words: a payment
        /// QR code's text keeps its spaces and quotes (`ООО "Ромашка"`).
        var takesLine = false

        /// Whether `word` (lower-cased) calls this command.
        func answers(_ word: String) -> Bool { word == name || aliases.contains(word) }
    }

    /// The commands: `help`, completion, "did you mean" and dispatch all read this one list, so a command is added
    /// in one place.
    static let commands: [Command] = [
        Command(name: "list", aliases: ["ls"], usage: "list") { repl, _ in
            repl.console.say(Listing.operations(of: repl.runtime.registry, language: repl.console.language)); return true
        },
        Command(name: "run", usage: "run OP|NUMBER|@TEMPLATE [ID=VALUE ...]", perform: { repl, arguments in
            repl.run(arguments); return true
        }, complete: { repl, words, line, word in repl.completeRun(words: words, line: line, word: word) }),
        Command(name: "repeat", usage: "repeat N [ID=VALUE ...]", perform: { repl, arguments in
            repl.repeatEntry(arguments); return true
        }, complete: { repl, words, line, word in
            guard words.count == 1 || (words.count == 2 && !line.hasSuffix(" ")) else { return [] }
            let count = (try? repl.runtime.ledger().journal.entries().count) ?? 0
            return count > 0 ? (1...count).map(String.init).filter { $0.hasPrefix(word) } : []
        }),
        Command(name: "qr", usage: "qr TEXT | qr --image FILE", perform: { repl, arguments in
            repl.paymentQR(arguments.first ?? ""); return true
        }, takesLine: true),
        Command(name: "template", aliases: ["templates"], usage: "template [save NAME | qr NAME]") { repl, arguments in
            repl.template(arguments); return true
        },
        Command(name: "basket", usage: "basket [show | add [OP|NUMBER|@TEMPLATE [ID=VALUE ...]] | remove N | clear | sign]",
                perform: { repl, arguments in repl.basket(arguments); return true },
                complete: { repl, words, line, word in
                    if words.count == 1 || (words.count == 2 && !line.hasSuffix(" ")) {
                        return ["show", "add", "remove", "clear", "sign"].filter { $0.hasPrefix(word) }
                    }
                    return words[1] == "add" ? repl.runtime.registry.operations.map(\.id).filter { $0.hasPrefix(word) } : []
                }),
        Command(name: "plugins", usage: "plugins") { repl, _ in
            repl.console.say(Listing.plugins(repl.runtime.registry.records, language: repl.console.language)); return true
        },
        Command(name: "reload", usage: "reload [ID] [--allow-downgrade ID]", perform: { repl, arguments in
            var arguments = arguments
            // A rollback to a lower version is refused unless asked for by the plugin's id.
            if let flag = arguments.firstIndex(of: "--allow-downgrade") {
                guard flag + 1 < arguments.count else {
                    repl.console.error("usage: reload [ID] [--allow-downgrade ID] — name the plugin whose lower version may replace the one in service")
                    return true
                }
                repl.runtime.registry.allowDowngrade(arguments[flag + 1])
                arguments.removeSubrange(flag...flag + 1)
            }
            let reports = repl.runtime.reload(only: arguments.first)
            if reports.isEmpty { repl.console.say(repl.console.text(.nothingChanged)) }
            for report in reports { repl.console.say(HostMessage.describe(report, repl.console.language)) }
            return true
        }, complete: { repl, _, _, word in repl.runtime.registry.pluginIDs.filter { $0.hasPrefix(word) } }),
        Command(name: "accounts", usage: "accounts [--json]") { repl, arguments in repl.accounts(arguments); return true },
        Command(name: "statement", usage: "statement ACCOUNT [--from DATE] [--to DATE] [--json]") { repl, arguments in
            repl.statement(arguments); return true
        },
        Command(name: "journal",
                usage: "journal [N | show N | receipt N] [--operation OP] [--account A] [--from DATE] [--to DATE] [--status S]") { repl, arguments in
            repl.journal(arguments); return true
        },
        Command(name: "pending", usage: "pending CUSTOMER [--json]") { repl, arguments in repl.pending(arguments); return true },
        Command(name: "approve", usage: "approve USER N") { repl, arguments in repl.decide(arguments, decline: false); return true },
        Command(name: "reject", usage: "reject USER N REASON") { repl, arguments in repl.decide(arguments, decline: true); return true },
        Command(name: "verify", usage: "verify") { repl, _ in repl.verify(); return true },
        Command(name: "keys", usage: "keys [show | code [--ahead N] | respond CHALLENGE | init [NAME] [--method ocra] [--force]]", perform: { repl, arguments in
            repl.keys(arguments); return true
        }, complete: { _, _, _, word in ["show", "code", "respond", "init"].filter { $0.hasPrefix(word) } }),
        Command(name: "help", aliases: ["?"], usage: "help [COMMAND]", perform: { repl, arguments in
            repl.console.say(repl.help(arguments.first)); return true
        }, complete: { _, _, _, word in REPL.commands.map(\.name).filter { $0.hasPrefix(word) } }),
        Command(name: "quit", aliases: ["exit", "\\q"], usage: "quit") { _, _ in false },
    ]

    /// Prints a one-line notice now (a reload), from any thread: above the line being typed, which is drawn
    /// again with its prompt, so input never lands on a bare line.
    func notify(_ line: String) { console.notice(line) }

    func start() {
        if console.interactive {
            console.say(console.text(.greeting(version: RBSHost.version, operations: runtime.registry.operations.count,
                                               plugins: runtime.registry.pluginIDs.count, editor: console.editor.backend)))
        }
        Listing.printFailures(runtime.registry, language: console.language)
        while true {
            console.completions = { [unowned self] line, word in completeCommand(line: line, word: word) }
            switch console.read("rbs> ") {
            case .endOfInput:
                if console.interactive { console.say("") }
                return
            case .interrupt:
                continue  // Ctrl-C at the top cancels the line, not the host
            case .line(let line):
                if !handle(line) { return }
            }
        }
    }

    /// Answers one line; returns false to quit.
    func handle(_ line: String) -> Bool {
        let words = Words.split(line)
        guard let command = words.first?.lowercased() else { return true }
        let arguments = Array(words.dropFirst())
        guard let entry = Self.commands.first(where: { $0.answers(command) }) else {
            let suggestion = Suggestion.closest(to: command, among: Self.commands.map(\.name))
            console.error(console.text(.unknownCommand(command, suggestion: suggestion)))
            return true
        }
        if entry.takesLine {
            let rest = line.trimmingCharacters(in: .whitespaces).drop { !$0.isWhitespace }.trimmingCharacters(in: .whitespaces)
            return entry.perform(self, [rest])
        }
        return entry.perform(self, arguments)
    }

    // MARK: - Commands

    /// `run OP|NUMBER|@TEMPLATE [ID=VALUE ...]`: the form, then the sign step — or, with `collect`, the submitted
    /// draft handed to it instead (`basket add`).
    func run(_ arguments: [String], collect: ((DocumentDraft) -> ModuleOutput)? = nil) {
        guard let target = arguments.first else {
            console.error(console.text(.runNeedsOperation))
            return
        }
        let operations = runtime.registry.operations
        let id = Int(target).flatMap { $0 >= 1 && $0 <= operations.count ? operations[$0 - 1].id : nil } ?? target
        // run @NAME: a template's operation, its values first (the line's values after them win).
        guard target.hasPrefix("@") else { return open(id, arguments: arguments.dropFirst(), collect: collect) }
        let name = String(target.dropFirst())
        do {
            let template = try TemplateStore(dataDirectory: runtime.paths.data).load(name)
            open(template.operation, arguments: arguments.dropFirst(), filled: (template, console.text(.report(.fromTemplate(name)))), collect: collect)
        } catch {
            console.error(error.description)
        }
    }

    /// `repeat N [ID=VALUE ...]`: the operation of journal entry N, prefilled with the values entered then.
    private func repeatEntry(_ arguments: [String]) {
        guard let target = arguments.first, let sequence = Int64(target), sequence >= 1 else {
            console.error("usage: repeat N [ID=VALUE ...] — N is a journal entry's number (see journal)")
            return
        }
        do {
            let form = try runtime.ledger().repeatableForm(ofEntry: sequence)
            open(form.operation, arguments: arguments.dropFirst(), filled: (form, console.text(.report(.fromEntry(sequence)))))
        } catch {
            console.error(String(describing: error))
        }
    }

    /// Opens operation `id` as a module, prefilled with `filled`'s values (those the plugin's current version no
    /// longer has named as dropped), then with the line's `ID=VALUE` arguments; with `collect`, the submitted draft
    /// goes to it instead of the sign step.
    func open(_ id: String, arguments: ArraySlice<String>, filled: (form: FormTemplate, source: String)? = nil,
                      collect: ((DocumentDraft) -> ModuleOutput)? = nil) {
        var prefill: [(id: String, value: String)] = []
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "=") else {
                console.error(console.text(.giveIDValue(argument)))
                return
            }
            prefill.append((String(argument[..<equals]), String(argument[argument.index(after: equals)...])))
        }
        let session: FormSession
        do { session = try runtime.open(id) } catch {
            // The REPL's own command for the operations, not the command line's.
            console.error(error.described(listing: "list"))
            return
        }
        session.language = console.language
        if let filled {
            let (kept, dropped) = filled.form.split(for: session.operation.descriptor)
            if !dropped.isEmpty { console.error(TemplateText.dropped(dropped, from: filled.source, session: session)) }
            prefill = kept.map { ($0.id, $0.value) } + prefill
        }
        let module = FormModule(session: session, runtime: runtime, console: console, navigation: navigation, collect: collect)
        defer { lastForm = FormTemplate(session: session) }
        let output = module.run(prefill: prefill)
        if case .done = output { lastFormSigned = collect == nil } else { lastFormSigned = false }
        switch output {
        case .done(let receipt): console.say(receipt)
        case .cancelled, .refused: console.say(Terminal.dim(console.text(.cancelledNothingPosted)))
        case .failed(let why): console.error(why)
        }
    }

    private func verify() {
        do {
            let ledger = try runtime.ledger()
            switch try ledger.journal.verify(authenticator: try? ledger.authenticator()) {
            case .ok(let count): console.say(console.text(.verified(entries: count)))
            case .bad(let sequence, let reason): console.error(console.text(.badEntry(sequence, reason: reason)))
            case .unreconciled(let reason): console.error(console.text(.unreconciled(reason)))
            }
        } catch { console.error(String(describing: error)) }
    }

    private func keys(_ arguments: [String]) {
        let store = KeyStore(dataDirectory: runtime.paths.data)
        do {
            if arguments.first == "init" {
                // keys init [NAME | --name NAME] [--method ocra] [--force], as the command takes it
                let options = Array(arguments.dropFirst())
                let ocra = zip(options, options.dropFirst()).contains { $0 == "--method" && $1 == "ocra" }
                let named = zip(options, options.dropFirst()).first { $0.0 == "--name" }?.1
                let name = named ?? zip([""] + options, options).first { !$0.0.hasPrefix("--") && !$0.1.hasPrefix("--") }?.1
                    ?? HostEnvironment.current.user ?? "user"
                let suite = ocra ? try OCRASuite(OCRASuite.hostDefault) : nil
                let (enrolment, created) = try KeysText.initialize(dataDirectory: runtime.paths.data, location: runtime.paths.database, name: name,
                                                                   force: arguments.contains("--force"), ocra: suite,
                                                                   language: console.language)
                console.say(([KeysText.enrolment(enrolment, language: console.language)] + [created].compactMap { $0 }).joined(separator: "\n"))
            } else if arguments.first == "code" {
                // keys code [--ahead N]: the current one-time code, as `rbs-host keys code` prints it.
                let options = try CommandArguments(Array(arguments.dropFirst()), command: "keys code", options: ["--ahead"])
                guard options.positional.isEmpty, let ahead = Int(options.values["--ahead"] ?? "0"), ahead >= 0 else {
                    throw CommandArguments.Problem.usage("keys code [--ahead N]")
                }
                if let problem = KeysText.aheadProblem(ahead) {
                    console.error(problem)
                    return
                }
                console.say(try KeysText.code(of: try store.load(), ahead: ahead))
            } else if arguments.first == "respond" {
                guard arguments.count >= 2 else { throw CommandArguments.Problem.usage("keys respond CHALLENGE") }
                console.say(try KeysText.response(to: arguments.dropFirst().joined(), of: try store.load()))
            } else if arguments.isEmpty || arguments.first == "show" {
                console.say(KeysText.identity(try store.load(), language: console.language))
            } else {
                throw CommandArguments.Problem.usage("keys [show | code [--ahead N] | respond CHALLENGE | init [NAME] [--method ocra] [--force]]")
            }
        } catch { console.error(String(describing: error)) }
    }

    func help(_ command: String?) -> String {
        if let command {
            guard let entry = Self.commands.first(where: { $0.name == command.lowercased() }) else {
                return console.text(.noSuchCommand(command))
            }
            return "\(entry.usage)\n  \(console.text(.commandSummary(entry.name)))"
        }
        var table = Table(header: [console.text(.helpHeaderCommand), console.text(.helpHeaderWhat)])
        table.rows = Self.commands.map { [$0.usage, console.text(.commandSummary($0.name))] }
        return table.render(width: console.width) + "\n" + console.text(.helpInsideForm)
    }

    // MARK: - Completion

    func completeCommand(line: String, word: String) -> [String] {
        let words = Words.split(line)
        let completingFirst = words.isEmpty || (words.count == 1 && !line.hasSuffix(" "))
        if completingFirst { return Self.commands.map(\.name).filter { $0.hasPrefix(word.lowercased()) } }
        return Self.commands.first { $0.answers(words[0].lowercased()) }?.complete?(self, words, line, word) ?? []
    }

    /// `run`'s completions: an operation id or list number, then the atoms that take a value (`ID=`).
    private func completeRun(words: [String], line: String, word: String) -> [String] {
        let operations = runtime.registry.operations
        if words.count == 1 || (words.count == 2 && !line.hasSuffix(" ")) {
            return (operations.map(\.id) + operations.indices.map { String($0 + 1) }).filter { $0.hasPrefix(word) }
        }
        let operation = Int(words[1]).flatMap { $0 >= 1 && $0 <= operations.count ? operations[$0 - 1] : nil }
            ?? operations.first { $0.id == words[1] }
        return (operation?.descriptor.atoms.filter(\.holdsValue).map { $0.id + "=" } ?? []).filter { $0.hasPrefix(word) }
    }
}

/// Splits a command line into words; 'single' or "double" quotes keep spaces inside a word.
enum Words {
    static func split(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
