import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one read at the prompt produced.
public enum LineInput: Equatable, Sendable {
    /// A line, without its newline.
    case line(String)
    /// Ctrl-C: the caller cancels what it was doing (a form) and goes back to the top prompt.
    case interrupt
    /// Ctrl-D on an empty line, or the end of piped input.
    case endOfInput
}

/// Line editing for the REPL: libedit (BSD licence, loaded at run time) with history and tab completion when
/// stdin and stdout are a terminal; plain line input otherwise (a piped script: no prompt, no editing).
///
/// ## Threads
/// ``read(prompt:)`` and ``readSecret(prompt:)`` **block** until a line, Ctrl-C or the end of input: call
/// them from a dedicated REPL thread (a `Thread`), never from the main actor or a Swift concurrency pool
/// thread, or use ``nextLine(prompt:)``, which runs one blocking read on a new thread and awaits it.
/// One read at a time: libedit's state is process-global, and so is the completer in use.
///
/// ## Ctrl-C
/// Creating an editor installs a SIGINT handler: Ctrl-C never kills the host. During a read it makes the read
/// return ``LineInput/interrupt`` (whichever thread the kernel delivers the signal to); while the host works
/// it sets a flag that long operations poll with ``takeInterrupt()``. A read starts by forgetting an
/// interrupt nobody took.
public final class LineEditor: @unchecked Sendable {
    /// Whether input is edited by libedit (input and output are terminals and libedit was loaded).
    public let isInteractive: Bool
    /// The input method, for `help` and the README: "libedit (libedit.so.2)" or "plain input (…why…)".
    public let backend: String
    /// Where history is kept (nil: history lives only in memory).
    public let historyFile: URL?
    /// The most history entries kept, in memory and in the file.
    public let maxHistory: Int

    private let completer: (any LineCompleter)?
    private let inputFD: Int32
    private let outputFD: Int32
    private let plain: PlainReader
    private let libedit: Libedit?
    private var streams: [UnsafeMutablePointer<FILE>] = []
    private var history: History
    /// Lines this editor added since it last saved: a save adds them to the file as it is then, so two REPLs on one
    /// data folder keep each other's lines (each wrote its own memory over the file).
    private var unsaved: [String] = []
    private let lock = NSLock()
    /// Serialises what reaches the terminal from several threads (``printAbove(_:)`` and ``write(_:)``).
    private let outputLock = NSLock()
    /// The prompt of the read in progress (nil between reads), for ``printAbove(_:)``.
    private var activePrompt: String?

    /// The history, oldest first (what Up-arrow walks through).
    public var historyEntries: [String] {
        lock.lock(); defer { lock.unlock() }
        return history.entries
    }

    /// Opens an editor on the process's stdin (fd 0) and stdout (fd 1).
    /// - Parameters:
    ///   - historyFile: loaded now, saved after each added line (so a killed process keeps it); nil for none.
    ///     Pass nil when stdin is not a terminal, so piped scripts do not fill the history.
    ///   - maxHistory: entries kept (oldest dropped first).
    ///   - completer: supplies tab completions (interactive mode only).
    ///   - name: the application name libedit looks up in `~/.editrc` (`rbs-host:bind ...`).
    public convenience init(historyFile: URL?, maxHistory: Int = 1000,
                            completer: (any LineCompleter)? = nil, name: String = "rbs-host") {
        self.init(historyFile: historyFile, maxHistory: maxHistory, completer: completer, name: name,
                  inputFD: STDIN_FILENO, outputFD: STDOUT_FILENO, allowLibedit: true)
    }

    /// Opens an editor on any pair of file descriptors (tests use a pipe, or a pseudo-terminal).
    /// The descriptors stay owned by the caller.
    init(historyFile: URL?, maxHistory: Int, completer: (any LineCompleter)?, name: String,
         inputFD: Int32, outputFD: Int32, allowLibedit: Bool) {
        Interrupts.install()
        self.historyFile = historyFile
        self.maxHistory = max(0, maxHistory)
        self.completer = completer
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.plain = PlainReader(fd: inputFD)
        var history = History(maxEntries: maxHistory)
        if let historyFile { history.load(from: historyFile) }
        self.history = history

        let terminal = isatty(inputFD) == 1 && isatty(outputFD) == 1
        let api = allowLibedit && terminal ? Libedit.shared : nil
        if let api {
            libedit = api
            isInteractive = true
            backend = "libedit (\(api.soname))"
        } else {
            libedit = nil
            isInteractive = false
            if !allowLibedit { backend = "plain input" }
            else if !terminal { backend = "plain input (not a terminal)" }
            else { backend = "plain input (libedit.so.2 not found)" }
        }
        if let api { configure(api, name: name) }
    }

    deinit {
        for stream in streams { fclose(stream) }
    }

    /// Points libedit at our descriptors and settings, and loads the history into it.
    private func configure(_ api: Libedit, name: String) {
        Self.ensureUTF8CharacterType()
        if inputFD == STDIN_FILENO && outputFD == STDOUT_FILENO {
            api.instream.pointee = nil   // libedit uses stdin / stdout
            api.outstream.pointee = nil
        } else if let input = fdopen(dup(inputFD), "r"), let output = fdopen(dup(outputFD), "w") {
            streams = [input, output]
            api.instream.pointee = input
            api.outstream.pointee = output
        }
        api.catchSignals?.pointee = 0          // our SIGINT handler; libedit's would kill(0, SIGINT)
        api.readlineName?.pointee = permanentCString(name)
        let breaks = permanentCString(" \t\n\"'`=;|&(")
        api.basicWordBreakCharacters?.pointee = breaks
        api.completerWordBreakCharacters?.pointee = breaks
        api.completionAppendCharacter?.pointee = 0x20
        api.attemptedCompletionFunction.pointee = Completion.callback
        _ = api.initialize()                   // (re)creates libedit's EditLine on rl_instream/rl_outstream
        api.clearHistory()
        api.stifleHistory?(Int32(clamping: maxHistory))
        for entry in history.entries { _ = api.addHistory(entry) }
    }

    /// libedit decodes keys with the C library's multibyte functions: in the "C" locale (Swift programs do not
    /// call `setlocale`) it drops every non-ASCII byte ("Müller" → "Mller"). Adopt the environment's character
    /// type, or C.UTF-8 when that is not UTF-8. Only LC_CTYPE changes (number formatting etc. are untouched).
    private static func ensureUTF8CharacterType() {
        func isUTF8(_ name: UnsafeMutablePointer<CChar>?) -> Bool {
            guard let name else { return false }
            let lowered = String(cString: name).lowercased()
            return lowered.contains("utf-8") || lowered.contains("utf8")
        }
        if isUTF8(setlocale(LC_CTYPE, nil)) { return }
        if isUTF8(setlocale(LC_CTYPE, "")) { return }
        for candidate in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] where isUTF8(setlocale(LC_CTYPE, candidate)) { return }
    }

    // MARK: Reading

    /// Reads one line, showing `prompt` when input is a terminal. **Blocks**: call it from a dedicated thread.
    public func read(prompt: String) -> LineInput {
        Interrupts.beginRead()
        defer { Interrupts.endRead() }
        guard let libedit else {
            if isatty(inputFD) == 1 { writeOut(prompt) }
            return convert(plain.readLine())
        }
        Completion.setCurrent(completer)
        outputLock.withLock { activePrompt = prompt }
        let result = prompt.withCString { libedit.readline($0) }
        outputLock.withLock { activePrompt = nil }
        if let result {
            defer { free(result) }
            Interrupts.clear()
            return .line(String(cString: result))
        }
        if Interrupts.take() {
            writeOut("^C\n")
            return .interrupt
        }
        writeOut("\n")
        return .endOfInput
    }

    /// Reads a line without echoing it (a password, a one-time code); never added to history.
    /// **Blocks**, like ``read(prompt:)``. When input is not a terminal, reads the next line as is.
    public func readSecret(prompt: String) -> LineInput {
        Interrupts.beginRead()
        defer { Interrupts.endRead() }
        guard isatty(inputFD) == 1 else { return convert(plain.readLine()) }
        var saved = termios()
        let haveTermios = tcgetattr(inputFD, &saved) == 0
        if haveTermios {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO | ECHONL)
            silent.c_lflag |= tcflag_t(ICANON | ISIG)
            tcsetattr(inputFD, TCSAFLUSH, &silent)
        }
        writeOut(prompt)
        let result = plain.readLine()
        if haveTermios { tcsetattr(inputFD, TCSAFLUSH, &saved) }
        writeOut(result == .interrupt ? "^C\n" : "\n")
        return convert(result)
    }

    /// Runs one blocking ``read(prompt:)`` on a new thread and returns its result (for async callers).
    public func nextLine(prompt: String, secret: Bool = false) async -> LineInput {
        await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
                continuation.resume(returning: secret ? readSecret(prompt: prompt) : read(prompt: prompt))
            }
            thread.name = "rbs-host.readline"
            thread.start()
        }
    }

    /// Takes the Ctrl-C pressed while no read was in progress (true once per Ctrl-C). Long operations poll it.
    public static func takeInterrupt() -> Bool {
        Interrupts.install()
        return Interrupts.take()
    }

    /// Installs the SIGINT handler without creating an editor (an editor installs it anyway).
    public static func installInterruptHandler() {
        Interrupts.install()
    }

    // MARK: History

    /// Adds a line to the history and saves the history file. Skipped: blank lines, a repeat of the previous
    /// line, and lines the caller marks `secret` (a line carrying a password or a code).
    public func addHistory(_ line: String, secret: Bool = false) {
        guard !secret else { return }
        lock.lock()
        let added = history.add(line)
        if added { unsaved.append(line) }
        lock.unlock()
        guard added else { return }
        if let libedit { _ = libedit.addHistory(line) }
        saveHistory()
    }

    /// Adds the lines added since the last save to ``historyFile`` as it is now (newest ``maxHistory`` entries, mode
    /// 0600; its folder is not made again). Failures are ignored: history is a convenience, not a record.
    public func saveHistory() {
        guard let historyFile else { return }
        lock.lock(); defer { lock.unlock() }
        guard !unsaved.isEmpty else { return }
        var merged = History(maxEntries: history.maxEntries)
        merged.load(from: historyFile)
        for line in unsaved { merged.add(line) }
        if (try? merged.save(to: historyFile)) != nil { unsaved.removeAll() }
    }

    // MARK: Output

    /// Writes `text` to the terminal, serialised with ``printAbove(_:)``: the REPL's one output path.
    public func write(_ text: String) {
        outputLock.withLock { writeOut(text) }
    }

    /// Prints `text` (whole lines, no trailing newline needed) from any thread. While a line is being edited the
    /// text goes above it: the prompt line is cleared, the text printed, and the prompt with what was typed so far
    /// is drawn again below it (libedit's `rl_forced_update_display`), the cursor where it was.
    public func printAbove(_ text: String) {
        outputLock.withLock {
            guard activePrompt != nil, let libedit, let redraw = libedit.forcedUpdateDisplay else {
                writeOut(text + "\n")
                return
            }
            writeOut("\r\u{1B}[K" + text + "\n")
            _ = redraw()
            fflush(nil)
        }
    }

    // MARK: Helpers

    private func convert(_ result: PlainReader.Result) -> LineInput {
        switch result {
        case .line(let line): return .line(line)
        case .interrupt: return .interrupt
        case .endOfInput: return .endOfInput
        }
    }

    private func writeOut(_ text: String) {
        if libedit != nil { fflush(nil) }   // libedit writes through FILE*
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(outputFD, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { break }
            offset += written
        }
    }
}
