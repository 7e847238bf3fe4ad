import Foundation
import RBSCore
import RBSLineEditor

/// The REPL's input and output: a line editor (libedit on a terminal, plain lines from a pipe), prompts only on a
/// terminal, and completions supplied by whichever module is on top.
final class Console {
    let editor: LineEditor
    /// Prompts, hints and menus are for people: a piped script sees answers only.
    let interactive: Bool
    /// The language of everything the host says to the person (`--lang`, else the locale).
    let language: HostLanguage
    /// What tab completes now; the module on top sets it.
    var completions: (_ line: String, _ word: String) -> [String] = { _, _ in [] }

    init(historyFile: URL?, language: HostLanguage) {
        self.language = language
        let box = WeakConsole()
        let terminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        editor = LineEditor(historyFile: terminal ? historyFile : nil,
                            completer: ClosureCompleter { line, word in box.console?.completions(line, word) ?? [] })
        interactive = editor.isInteractive
        box.console = self
    }

    /// Reads one line; the prompt is shown only on a terminal. A line enters the history only when `remember` and
    /// it is neither `secret` nor holds a card number (codes, secrets and PANs never reach the history file).
    func read(_ prompt: String, secret: Bool = false, remember: Bool = true) -> LineInput {
        let shown = interactive ? prompt : ""
        let input = secret ? editor.readSecret(prompt: shown) : editor.read(prompt: shown)
        if case .line(let text) = input, remember, !secret, interactive, !CardNumberMask.mayContainCardNumber(text) {
            editor.addHistory(text.trimmingCharacters(in: .whitespaces))
        }
        return input
    }

    /// The terminal's width in columns, asked each time (the window may have been resized); nil off a terminal,
    /// where a table is printed whole for the script reading it.
    var width: Int? { interactive ? Terminal.columns : nil }

    /// Text for people only (menus, hints): not printed for a piped script.
    func hint(_ text: String) {
        if interactive { say(text) }
    }

    /// Prints lines through the one output path (serialised with notices from other threads).
    func say(_ text: String) {
        fflush(nil)
        editor.write(text + "\n")
    }

    func error(_ message: String) { Terminal.error(message, label: text(.errorLabel)) }

    /// A message of the host's catalogue in the person's language.
    func text(_ message: HostMessage) -> String { message.text(language) }

    /// The host's warnings from other threads (a rollout sync, a worker) printed as notices are, above the line being
    /// typed, the prompt drawn again under it; from a pipe they stay on standard error, apart from the answers.
    func showWarnings(of log: StandardErrorLog) {
        guard interactive else { return }
        let box = WeakConsole()
        box.console = self
        log.divert { line in box.console?.editor.printAbove(Terminal.yellow(line)) }
    }

    /// A one-line notice from any thread (a hot reload): printed above the line being typed, and the prompt with
    /// what was typed so far is drawn again under it; from a pipe, just the line.
    func notice(_ text: String) {
        if interactive { editor.printAbove(Terminal.dim("⟳ " + text)) } else { editor.write("⟳ " + text + "\n") }
    }
}

/// The console as closures on other threads reach it (the completer, the host's log), without keeping it alive.
private final class WeakConsole: @unchecked Sendable {
    weak var console: Console?
}
