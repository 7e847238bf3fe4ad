import Foundation
import RBSCore
import RBSLedger
import RBSLineEditor

/// One run of an operation in the REPL (seed 002: a module with a lifecycle): the form's atoms prompted in order,
/// the account picker embedded, review and signing presented modally. The plugin's instance is freed when the
/// module ends, whatever way it ends.
final class FormModule {
    private let session: FormSession
    private let runtime: Runtime
    private let console: Console
    private let navigation: Navigation
    private var cursor = 0
    /// What each text atom last showed (its caption, announced or passed), so no line is printed twice.
    private var shownCaptions: [String: String] = [:]
    /// Where a submitted draft goes instead of the sign step (`basket add`): `.done` ends the module, `.refused`
    /// (said already) returns to the form.
    private let collect: ((DocumentDraft) -> ModuleOutput)?

    init(session: FormSession, runtime: Runtime, console: Console, navigation: Navigation,
         collect: ((DocumentDraft) -> ModuleOutput)? = nil) {
        self.session = session
        self.runtime = runtime
        self.console = console
        self.navigation = navigation
        self.collect = collect
    }

    private var atoms: [AtomDescriptor] { session.operation.descriptor.atoms }

    /// Runs the module to its end. `prefill` is the module's typed input: values given on the `run` line.
    func run(prefill: [(id: String, value: String)]) -> ModuleOutput {
        let descriptor = session.operation.descriptor
        navigation.enter(descriptor.category)
        navigation.enter(descriptor.title)
        defer {
            navigation.leave()
            navigation.leave()
            session.close()
        }
        console.say(Terminal.bold(navigation.breadcrumb))
        console.hint(Terminal.dim(console.text(.formKeys)))
        for (id, value) in prefill {
            do { announce(try session.commit(id, text: value, reader: .script)) } catch {
                if session.isClosed { return .failed(session.describe(error)) }
                console.error(session.describe(error))
            }
        }
        while true {
            guard cursor < atoms.count else {
                // A form without a submit button submits after its last atom.
                if let output = submitFlow() { return output }
                continue
            }
            let index = cursor
            let atom = atoms[index]
            guard let state = session.atom(atom.id), state.visible else {
                cursor += 1
                continue
            }
            switch atom.kind {
            case .text:
                if !state.caption.isEmpty, shownCaptions[atom.id] != state.caption {
                    console.say("  " + Terminal.dim(state.caption))
                    shownCaptions[atom.id] = state.caption
                }
                cursor += 1
            case .button:
                if let output = button(atom, state) { return output }
            default:
                if let output = ask(atom, state) { return output }
            }
        }
    }

    // MARK: - Atoms

    /// Prompts for one atom's value. Returns an output when the module ends.
    private func ask(_ atom: AtomDescriptor, _ state: AtomState) -> ModuleOutput? {
        if atom.kind == .account { showAccounts(atom) }
        if atom.kind == .enumeration {
            console.hint(atom.options.enumerated().map { "    \($0.offset + 1)) \($0.element.title)" }.joined(separator: "\n"))
        }
        let secret = atom.flags.contains(.secret)
        let current = state.value.isEmpty ? ""
            : " [\(secret ? "••••" : DocumentPresentation.value(state.value, of: state.descriptor, console.language))]"
        // No colour inside a prompt: libedit counts every byte of it as a column.
        let prompt = "\(state.caption) \(Self.kindHint(state.descriptor, console.language))\(current)> "
        console.completions = { [session] _, word in Self.completions(for: atom, session: session, word: word) }
        let input = console.read(prompt, secret: secret)
        console.completions = { _, _ in [] }
        switch input {
        case .interrupt:
            console.say("")
            return .cancelled
        case .endOfInput: return .cancelled
        case .line(let raw):
            let text = atom.kind == .input && atom.inputType == .text ? raw : raw.trimmingCharacters(in: .whitespaces)
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "": cursor += 1
            case "back": back()
            case "cancel": return .cancelled
            case "?": help(atom)
            default:
                let changes: FormAnnouncements
                do { changes = try session.commit(atom.id, text: text, reader: .person) } catch {
                    // The plugin's worker failed: the run is over, and the line says why (no "try again").
                    if session.isClosed { return .failed(session.describe(error)) }
                    // Refused: the atom keeps its value and no error is left behind.
                    console.error(session.describe(error) + console.text(.tryAgain))
                    return nil
                }
                announce(changes)
                if let own = changes.errors.first(where: { $0.id == atom.id }) {
                    // Stay on the atom: fix it, or Enter keeps the value and goes on.
                    console.say("  " + Terminal.yellow("⚠ " + own.message) + Terminal.dim(console.text(.fixOrGoOn)))
                } else if let other = changes.errors.first,
                          let index = atoms.firstIndex(where: { $0.id == other.id }) {
                    // A cross-field check found a problem in another atom: go there, named by its prompt.
                    let caption = session.atom(other.id)?.caption ?? other.id
                    console.say("  " + Terminal.yellow("⚠ \(caption): \(other.message)") + Terminal.dim(console.text(.backToThatField)))
                    cursor = index
                } else {
                    cursor += 1
                }
            }
        }
        return nil
    }

    private func button(_ atom: AtomDescriptor, _ state: AtomState) -> ModuleOutput? {
        let submits = atom.flags.contains(.submit)
        let prompt = "[\(state.caption)] " + console.text(submits ? .enterSubmits : .enterPresses) + "> "
        console.completions = { _, word in ["back", "cancel"].filter { $0.hasPrefix(word) } }
        let input = console.read(prompt)
        console.completions = { _, _ in [] }
        switch input {
        case .interrupt, .endOfInput: return .cancelled
        case .line(let text):
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "back": back()
            case "cancel": return .cancelled
            case "?": console.say(console.text(submits ? .submitHelp : .actionHelp))
            case "":
                if submits { return submitFlow() }
                do { announce(try session.press(atom.id)) } catch {
                    if session.isClosed { return .failed(session.describe(error)) }
                    console.error(session.describe(error))
                }
                cursor += 1
            default: console.error(console.text(.pressEnterOrWord(text)))
            }
        }
        return nil
    }

    /// Submits; on success presents the sign module. Returns nil to go on editing.
    private func submitFlow() -> ModuleOutput? {
        switch session.submit() {
        case .failed(let why):
            // The REPL prints a module's failure once, when it ends.
            return .failed(why)
        case .needsAttention(let issues):
            console.say(Terminal.yellow(console.text(.needsAttention)))
            // Each field named once, by its caption, as `run` names it ("required: Оператор", not "Оператор: required: Оператор").
            var captions: [String: String] = [:]
            for id in issues.compactMap(\.atom) { captions[id] = session.atom(id)?.caption }
            for issue in issues {
                console.say("  ⚠ " + (issue.atom == nil ? "\(console.text(.form)): \(issue.message)" : RunText.named(issue, captions: captions)))
            }
            let first = issues.compactMap(\.atom).compactMap { id in atoms.firstIndex { $0.id == id } }.min()
            cursor = first ?? 0
            return nil
        case .ready(let draft):
            let outcome = collect?(draft) ?? SignPresenter(draft: draft, runtime: runtime, console: console, navigation: navigation).run()
            switch outcome {
            case .done(let receipt): return .done(receipt)
            case .failed(let why): return .failed(why)
            case .cancelled, .refused:
                console.say(Terminal.dim(console.text(outcome == .refused ? .notOffered : .signingCancelled)))
                cursor = max(0, (atoms.lastIndex { $0.kind == .button && $0.flags.contains(.submit) } ?? atoms.count - 1))
                return nil
            }
        }
    }

    private func back() {
        var index = cursor - 1
        while index >= 0 {
            let atom = atoms[index]
            if atom.holdsValue, session.atom(atom.id)?.visible == true { break }
            index -= 1
        }
        cursor = max(index, 0)
    }

    private func help(_ atom: AtomDescriptor) {
        var lines = ["\(atom.caption) — \(Self.kindHint(session.declaration(of: atom.id) ?? atom, console.language))"]
        if let hint = atom.hint { lines.append(hint) }
        if atom.isOptional { lines.append(console.text(.optionalHelp)) }
        if let error = session.atom(atom.id)?.error { lines.append(Terminal.yellow("⚠ " + error)) }
        lines.append(console.text(.formHelpKeys))
        console.say(lines.map { "  " + $0 }.joined(separator: "\n"))
    }

    /// The embedded account picker: the accounts offered, each under its number for the whole run (a number
    /// never moves to another account when a picker leaves one out), with balances.
    private func showAccounts(_ atom: AtomDescriptor) {
        let offered = session.offeredAccounts(for: atom.id)
        guard !offered.isEmpty else {
            console.say(Terminal.yellow("  " + session.noAccountMessage))
            return
        }
        var table = Table(header: [console.text(.accountsHeader), console.text(.accountColumn), console.text(.balance),
                                   console.text(.title)], rightAligned: [2])
        for (number, account) in offered {
            // Only accounts the core takes postings on are offered (``FormSession/offeredAccounts(for:)``): no state to mark.
            table.rows.append(["\(number)", account.number, Amount.shown(account.balance, console.language),
                               account.title])
        }
        navigation.enter(atom.caption)
        console.hint(table.render().split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
        navigation.leave()
    }

    private func announce(_ changes: FormAnnouncements) {
        for id in changes.appeared { console.say("  + " + (session.atom(id)?.caption ?? id)) }
        for id in changes.disappeared { console.say("  − " + (session.atom(id)?.caption ?? id)) }
        for (id, caption) in changes.captions where session.atom(id)?.kind == .text && shownCaptions[id] != caption {
            console.say("  " + Terminal.green("ℹ " + (caption.isEmpty ? console.text(.cleared(id)) : caption)))
            shownCaptions[id] = caption
        }
    }

    static func kindHint(_ atom: AtomDescriptor, _ language: HostLanguage) -> String {
        let length: String
        switch (atom.minLength, atom.maxLength) {
        case (0, 0): length = ""
        case (let min, let max) where min == max: length = ", \(max)"
        case (let min, 0): length = ", ≥\(min)"
        case (let min, let max): length = ", \(min)–\(max)"
        }
        let kind: HostMessage
        switch atom.kind {
        case .input:
            switch atom.inputType {
            case .text: kind = .kindText(length)
            case .digits: kind = .kindDigits(length)
            case .number: kind = .kindNumber
            case .amount: kind = .kindAmount(atom.currency ?? "")
            case .date: kind = .kindDate
            }
        case .enumeration: kind = .kindChoice(atom.options.count)
        case .toggle: return "(\(HostMessage.kindToggle.text(language)))"
        case .account: kind = .kindAccount
        case .text, .button: return ""
        }
        return "(\(kind.text(language))\(atom.isOptional ? ", " + HostMessage.optional.text(language) : ""))"
    }

    static func completions(for atom: AtomDescriptor, session: FormSession, word: String) -> [String] {
        var candidates = ["back", "cancel"]
        switch atom.kind {
        case .enumeration: candidates += atom.options.map(\.title)
        case .account: candidates += session.accounts(for: atom.id).map(\.number)
        case .toggle: candidates += ["yes", "no"]
        default: break
        }
        return candidates.filter { $0.lowercased().hasPrefix(word.lowercased()) }
    }
}
