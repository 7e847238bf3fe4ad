import Foundation
import Testing
@testable import RBSLineEditor
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LineEditorTests {
    @Suite("Plain input (not a terminal)")
    struct PlainInput {
        func editor(input: TestPipe, output: TestPipe, historyFile: URL? = nil) -> LineEditor {
            LineEditor(historyFile: historyFile, maxHistory: 100, completer: nil, name: "rbs-host-tests",
                       inputFD: input.readFD, outputFD: output.writeFD, allowLibedit: true)
        }

        @Test("a piped script is read line by line without prompts, then ends")
        func pipedScriptIsReadLineByLine() {
            let input = TestPipe(), output = TestPipe()
            input.write("first line\nsecond\r\n\nlast without newline")
            input.closeWrite()
            let editor = editor(input: input, output: output)
            #expect(!editor.isInteractive)
            #expect(editor.backend == "plain input (not a terminal)")
            #expect(editor.read(prompt: "rbs> ") == .line("first line"))
            #expect(editor.read(prompt: "rbs> ") == .line("second"))
            #expect(editor.read(prompt: "rbs> ") == .line(""))
            #expect(editor.read(prompt: "rbs> ") == .line("last without newline"))
            #expect(editor.read(prompt: "rbs> ") == .endOfInput)
            #expect(editor.read(prompt: "rbs> ") == .endOfInput)
            #expect(output.available() == "")
        }

        @Test("lines arriving slowly are returned as they come, UTF-8 intact")
        func linesArriveAsTheyCome() {
            let input = TestPipe(), output = TestPipe()
            let editor = editor(input: input, output: output)
            let pending = BackgroundRead { editor.read(prompt: "") }
            input.write("Zürich ")
            usleep(50_000)
            input.write("Müller €5\nnext")
            #expect(pending.wait() == .line("Zürich Müller €5"))
            input.closeWrite()
            #expect(editor.read(prompt: "") == .line("next"))
        }

        @Test("a secret read from a pipe takes the next line and stays out of the history")
        func secretFromPipe() {
            let input = TestPipe(), output = TestPipe()
            input.write("123456\nvisible\n")
            input.closeWrite()
            let editor = editor(input: input, output: output)
            #expect(editor.readSecret(prompt: "Code: ") == .line("123456"))
            #expect(editor.read(prompt: "") == .line("visible"))
            #expect(editor.historyEntries.isEmpty)
        }

        @Test("Ctrl-C during a plain read returns .interrupt, whichever thread gets SIGINT")
        func interruptDuringPlainRead() {
            let input = TestPipe(), output = TestPipe()
            let editor = editor(input: input, output: output)
            let pending = BackgroundRead { editor.read(prompt: "") }
            usleep(100_000)
            kill(getpid(), SIGINT)   // process-directed, like the terminal's
            #expect(pending.wait() == .interrupt)
            input.write("after\n")
            #expect(editor.read(prompt: "") == .line("after"))
        }

        @Test("Ctrl-C while the host works does not kill it and is taken once")
        func interruptOutsideRead() {
            LineEditor.installInterruptHandler()
            _ = LineEditor.takeInterrupt()
            #expect(LineEditor.takeInterrupt() == false)
            // Process-directed, like the terminal's: handled by whichever thread does not block SIGINT
            // (the test's own thread may be a dispatch worker, which blocks it), so wait for the flag.
            kill(getpid(), SIGINT)
            var taken = false
            for _ in 0..<200 where !taken {
                taken = LineEditor.takeInterrupt()
                if !taken { usleep(5_000) }
            }
            #expect(taken)
            #expect(LineEditor.takeInterrupt() == false)
        }
    }

    @Suite("History file")
    struct HistoryFile {
        @Test("added lines are saved at once, blanks, repeats and secrets skipped, mode 0600")
        func savesAfterEachLine() throws {
            let file = temporaryDirectory().appendingPathComponent("history")
            let input = TestPipe(), output = TestPipe()
            let editor = LineEditor(historyFile: file, maxHistory: 100, completer: nil, name: "t",
                                    inputFD: input.readFD, outputFD: output.writeFD, allowLibedit: true)
            editor.addHistory("balance 42")
            #expect(try String(contentsOf: file, encoding: .utf8) == "balance 42\n")
            editor.addHistory("balance 42")
            editor.addHistory("")
            editor.addHistory("   ")
            editor.addHistory("login alice hunter2", secret: true)
            editor.addHistory("transfer 10.00 EUR")
            #expect(editor.historyEntries == ["balance 42", "transfer 10.00 EUR"])
            #expect(try String(contentsOf: file, encoding: .utf8) == "balance 42\ntransfer 10.00 EUR\n")
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }

        @Test("two editors on one file keep each other's lines; a folder gone is not made again for the history")
        func twoEditors() throws {
            let folder = temporaryDirectory()
            let file = folder.appendingPathComponent("history")
            let input = TestPipe(), output = TestPipe()
            let first = LineEditor(historyFile: file, maxHistory: 100, completer: nil, name: "t",
                                   inputFD: input.readFD, outputFD: output.writeFD, allowLibedit: true)
            let second = LineEditor(historyFile: file, maxHistory: 100, completer: nil, name: "t",
                                    inputFD: input.readFD, outputFD: output.writeFD, allowLibedit: true)
            first.addHistory("accounts")
            second.addHistory("journal")
            first.addHistory("run transfer.own")
            #expect(try String(contentsOf: file, encoding: .utf8) == "accounts\njournal\nrun transfer.own\n")
            // The data folder moved away while the REPL ran: no folder holding only a history file appears.
            try FileManager.default.removeItem(at: folder)
            first.addHistory("verify")
            #expect(!FileManager.default.fileExists(atPath: folder.path))
        }

        @Test("history round-trips through the file, multi-line entries included, and loads at init")
        func roundTrip() {
            let file = temporaryDirectory().appendingPathComponent("history")
            let input = TestPipe(), output = TestPipe()
            let first = LineEditor(historyFile: file, maxHistory: 100, completer: nil, name: "t",
                                   inputFD: input.readFD, outputFD: output.writeFD, allowLibedit: true)
            let entries = ["one", "two words", "back\\slash", "multi\nline", "Ünïcödé €"]
            for entry in entries { first.addHistory(entry) }
            let second = LineEditor(historyFile: file, maxHistory: 100, completer: nil, name: "t",
                                    inputFD: input.readFD, outputFD: output.writeFD, allowLibedit: true)
            #expect(second.historyEntries == entries)
        }

        @Test("history is truncated to maxHistory, newest kept, in memory and in the file")
        func truncatesToMax() throws {
            let file = temporaryDirectory().appendingPathComponent("history")
            try "old1\nold2\nold3\nold4\n".write(to: file, atomically: true, encoding: .utf8)
            let input = TestPipe(), output = TestPipe()
            let editor = LineEditor(historyFile: file, maxHistory: 3, completer: nil, name: "t",
                                    inputFD: input.readFD, outputFD: output.writeFD, allowLibedit: true)
            #expect(editor.historyEntries == ["old2", "old3", "old4"])
            editor.addHistory("new1")
            editor.addHistory("new2")
            #expect(editor.historyEntries == ["old4", "new1", "new2"])
            #expect(try String(contentsOf: file, encoding: .utf8) == "old4\nnew1\nnew2\n")
        }

        @Test("a history file written by libedit's write_history is read")
        func readsLibeditFormat() throws {
            let file = temporaryDirectory().appendingPathComponent("history")
            try "_HiStOrY_V2_\nbalance\\04042\nhelp\n".write(to: file, atomically: true, encoding: .utf8)
            var history = History(maxEntries: 10)
            history.load(from: file)
            #expect(history.entries == ["balance 42", "help"])
        }

        @Test("a missing history file means an empty history")
        func missingFile() {
            var history = History(maxEntries: 10)
            history.load(from: temporaryDirectory().appendingPathComponent("absent"))
            #expect(history.entries.isEmpty)
        }
    }

    @Suite("Completion candidates")
    struct CompletionCandidates {
        @Test("only candidates starting with the word are kept, once, in the completer's order")
        func filtersByPrefix() {
            let candidates = ["history", "help", "quit", "help", "hex", "Help"]
            #expect(Completion.filter(candidates, word: "he") == ["help", "hex"])
            #expect(Completion.filter(candidates, word: "") == ["history", "help", "quit", "hex", "Help"])
            #expect(Completion.filter(candidates, word: "x").isEmpty)
        }

        @Test("several matches complete to their longest common prefix")
        func commonPrefix() {
            #expect(Completion.commonPrefix(["account-1", "account-2", "accrual"]) == "acc")
            #expect(Completion.commonPrefix(["transfer"]) == "transfer")
            #expect(Completion.commonPrefix([]) == "")
        }

        @Test("the matches are handed to libedit in readline's layout: substitution, matches, NULL")
        func readlineLayout() {
            func strings(_ array: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String] {
                guard let array else { return [] }
                var out: [String] = []
                var index = 0
                while let entry = array[index] { out.append(String(cString: entry)); free(entry); index += 1 }
                free(array)
                return out
            }
            #expect(strings(Completion.readlineMatches(["help"], word: "he")) == ["help", "help"])
            #expect(strings(Completion.readlineMatches(["help", "hex"], word: "he")) == ["he", "help", "hex"])
            #expect(Completion.readlineMatches([], word: "he") == nil)
        }

        @Test("a closure can be the completer")
        func closureCompleter() {
            let completer = ClosureCompleter { line, word in ["\(line)|\(word)"] }
            #expect(completer.completions(line: "pay ac", word: "ac") == ["pay ac|ac"])
        }
    }
}
