import Foundation
import Testing
@testable import RBSLineEditor
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LineEditorTests {
    /// libedit driven for real, in-process: the editor's `rl_instream` / `rl_outstream` are the slave side of
    /// a pseudo-terminal opened with `posix_openpt`; the test types keys on the master side.
    @Suite("libedit in a pseudo-terminal",
           .enabled(if: libeditAvailable, "libedit.so.2 is not installed: the libedit tests are skipped"))
    struct LibeditTerminal {
        func editor(_ tty: PseudoTerminal, history: URL? = nil,
                    completer: (any LineCompleter)? = nil) -> LineEditor {
            LineEditor(historyFile: history, maxHistory: 100, completer: completer, name: "rbs-host-tests",
                       inputFD: tty.slave, outputFD: tty.slave, allowLibedit: true)
        }

        /// Starts a read, waits for the prompt (the editor is in raw mode), types `keys`, returns the result.
        func session(_ editor: LineEditor, _ tty: PseudoTerminal, keys: String,
                     prompt: String = "rbs> ", occurrence: Int = 1) -> LineInput? {
            let pending = BackgroundRead { editor.read(prompt: prompt) }
            guard tty.waitFor(prompt, occurrences: occurrence) else { return nil }
            usleep(20_000)
            tty.type(keys)
            let result = pending.wait()
            if result == nil { tty.type("\r") }   // unblock the stuck reader before failing
            return result
        }

        @Test("on a terminal, libedit is the backend and shows the prompt")
        func libeditIsTheBackend() throws {
            let tty = try PseudoTerminal()
            let editor = editor(tty)
            #expect(editor.isInteractive)
            #expect(editor.backend.hasPrefix("libedit"))
            #expect(session(editor, tty, keys: "hello world\r") == .line("hello world"))
            #expect(tty.screen.contains("rbs> "))
        }

        @Test("non-ASCII text is typed and edited as characters (UTF-8)")
        func unicodeInput() throws {
            let tty = try PseudoTerminal()
            let editor = editor(tty)
            // Backspace removes the whole "€" (three bytes), not one byte of it.
            #expect(session(editor, tty, keys: "payee Müller Zürich €\u{7F}5 €\r") == .line("payee Müller Zürich 5 €"))
        }

        @Test("line editing keys work: Left arrow, Backspace, Ctrl-A, Ctrl-E")
        func editingKeys() throws {
            let tty = try PseudoTerminal()
            let editor = editor(tty)
            // "balnce" → Left×2, insert 'a' → "balance"; Ctrl-A, type "x"; Ctrl-E, Backspace-less append.
            let keys = "balnce\u{1B}[D\u{1B}[D\u{1B}[Da\u{01}show \u{05} 42\u{7F}3\r"
            #expect(session(editor, tty, keys: keys) == .line("show balance 43"))
        }

        @Test("Tab completes a single candidate fully, with a trailing space")
        func tabCompletesSingleCandidate() throws {
            let tty = try PseudoTerminal()
            let completer = RecordingCompleter(["help", "history", "quit"])
            let editor = editor(tty, completer: completer)
            #expect(session(editor, tty, keys: "hel\t\r") == .line("help "))
            #expect(completer.calls.first?.line == "hel")
            #expect(completer.calls.first?.word == "hel")
        }

        @Test("Tab gets the line up to the cursor and the current word, and completes the common prefix")
        func tabCompletesCommonPrefixInContext() throws {
            let tty = try PseudoTerminal()
            let completer = RecordingCompleter(["account-1", "account-2", "balance"])
            let editor = editor(tty, completer: completer)
            #expect(session(editor, tty, keys: "transfer acc\t\r") == .line("transfer account-"))
            #expect(completer.calls.first?.line == "transfer acc")
            #expect(completer.calls.first?.word == "acc")
        }

        @Test("Tab with no candidate leaves the line alone (no file-name completion)")
        func tabWithoutCandidate() throws {
            let tty = try PseudoTerminal()
            let editor = editor(tty, completer: RecordingCompleter(["help"]))
            #expect(session(editor, tty, keys: "zz\t\r") == .line("zz"))
        }

        @Test("Up arrow recalls the history loaded from the file and lines added since")
        func upArrowRecallsHistory() throws {
            let tty = try PseudoTerminal()
            let file = temporaryDirectory().appendingPathComponent("history")
            try "balance 1\ntransfer 2\n".write(to: file, atomically: true, encoding: .utf8)
            let editor = editor(tty, history: file)
            #expect(session(editor, tty, keys: "\u{1B}[A\r", occurrence: 1) == .line("transfer 2"))
            #expect(session(editor, tty, keys: "\u{1B}[A\u{1B}[A\r", occurrence: 2) == .line("balance 1"))
            editor.addHistory("statement 3")
            #expect(session(editor, tty, keys: "\u{1B}[A\r", occurrence: 3) == .line("statement 3"))
            #expect(try String(contentsOf: file, encoding: .utf8) == "balance 1\ntransfer 2\nstatement 3\n")
        }

        @Test("Ctrl-D on an empty line is the end of input")
        func ctrlDEndsInput() throws {
            let tty = try PseudoTerminal()
            let editor = editor(tty)
            #expect(session(editor, tty, keys: "\u{04}") == .endOfInput)
        }

        @Test("Ctrl-C at the prompt returns .interrupt without killing the host, and the next read works")
        func ctrlCInterrupts() throws {
            let tty = try PseudoTerminal()
            let editor = editor(tty)
            let pending = BackgroundRead { editor.read(prompt: "rbs> ") }
            #expect(tty.waitFor("rbs> "))
            tty.type("half-typed")
            #expect(tty.waitFor("half-typed"))
            // The terminal's Ctrl-C is process-directed: any thread may receive it.
            kill(getpid(), SIGINT)
            let result = pending.wait()
            if result == nil { tty.type("\r") }
            #expect(result == .interrupt)
            #expect(session(editor, tty, keys: "after\r", occurrence: 2) == .line("after"))
        }

        @Test("a secret is read with echo off and stays out of the history")
        func secretIsNotEchoed() throws {
            let tty = try PseudoTerminal()
            let editor = editor(tty)
            let pending = BackgroundRead { editor.readSecret(prompt: "PIN: ") }
            #expect(tty.waitFor("PIN: "))
            usleep(20_000)
            tty.type("s3cr3t\r")
            #expect(pending.wait() == .line("s3cr3t"))
            usleep(50_000)
            #expect(!tty.screen.contains("s3cr3t"))
            #expect(editor.historyEntries.isEmpty)
        }
    }
}
