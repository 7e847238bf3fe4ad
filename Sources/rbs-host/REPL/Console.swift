import Foundation
import RBSLineEditor

/// The REPL's input and output: a line editor (libedit on a terminal, plain lines from a pipe), prompts only on a
/// terminal, and completions supplied by whichever module is on top.
final class Console {
    let editor: LineEditor
    /// Prompts, hints and menus are for people: a piped script sees answers only.
    let interactive: Bool
    /// What tab completes now; the module on top sets it.
    var completions: (_ line: String, _ word: String) -> [String] = { _, _ in [] }

    init(historyFile: URL?) {
        let box = CompletionBox()
        let terminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        editor = LineEditor(historyFile: terminal ? historyFile : nil,
                            completer: ClosureCompleter { line, word in box.console?.completions(line, word) ?? [] })
        interactive = editor.isInteractive
        box.console = self
    }

    /// Reads one line; the prompt is shown only on a terminal.
    func read(_ prompt: String, secret: Bool = false) -> LineInput {
        let shown = interactive ? prompt : ""
        let input = secret ? editor.readSecret(prompt: shown) : editor.read(prompt: shown)
        if case .line(let text) = input, !secret, interactive { editor.addHistory(text.trimmingCharacters(in: .whitespaces)) }
        return input
    }

    /// Text for people only (menus, hints): not printed for a piped script.
    func hint(_ text: String) {
        if interactive { print(text) }
    }

    func say(_ text: String) { print(text) }

    func error(_ text: String) { Terminal.error(text) }
}

private final class CompletionBox: @unchecked Sendable {
    weak var console: Console?
}
