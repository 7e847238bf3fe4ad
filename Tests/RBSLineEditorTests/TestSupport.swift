import Foundation
import Testing
@testable import RBSLineEditor
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every test of this target runs one at a time: libedit's state, the completer in use and the SIGINT flag
/// are process-global.
@Suite("RBSLineEditor", .serialized)
enum LineEditorTests {}

/// Runs a blocking read on its own thread (as the REPL does) and waits for it, at most `timeout` seconds.
final class BackgroundRead: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: LineInput?

    init(_ body: @escaping @Sendable () -> LineInput) {
        let thread = Thread { [self] in
            result = body()
            done.signal()
        }
        thread.start()
    }

    func wait(timeout: Double = 10) -> LineInput? {
        done.wait(timeout: .now() + timeout) == .success ? result : nil
    }
}

/// A pipe; `write` then `closeWrite` to play a piped script.
final class TestPipe {
    let readFD: Int32
    private(set) var writeFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        readFD = fds[0]
        writeFD = fds[1]
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(writeFD, $0.baseAddress, $0.count) }
    }

    func closeWrite() {
        if writeFD >= 0 { close(writeFD); writeFD = -1 }
    }

    /// What was written so far, without blocking.
    func available() -> String {
        _ = fcntl(readFD, F_SETFL, fcntl(readFD, F_GETFL) | O_NONBLOCK)
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(readFD, &chunk, chunk.count)
            if count <= 0 { break }
            out += chunk[..<count]
        }
        return String(decoding: out, as: UTF8.self)
    }

    deinit {
        close(readFD)
        closeWrite()
    }
}

/// A pseudo-terminal pair opened in-process (`posix_openpt`): the editor reads and writes the slave side,
/// the test types on the master side and collects what the editor displays.
final class PseudoTerminal: @unchecked Sendable {
    let master: Int32
    let slave: Int32
    private let lock = NSLock()
    private var output: [UInt8] = []
    private var closed = false

    // Glibc's Swift overlay hides the XSI pty functions: look them up in libc.
    private typealias OpenPT = @convention(c) (Int32) -> Int32
    private typealias FDToInt = @convention(c) (Int32) -> Int32
    private typealias PTSName = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
    private static func libc<F>(_ name: String, _ type: F.Type) -> F {
        unsafeBitCast(dlsym(dlopen(nil, RTLD_NOW), name)!, to: type)
    }

    init() throws {
        let posix_openpt = Self.libc("posix_openpt", OpenPT.self)
        let grantpt = Self.libc("grantpt", FDToInt.self)
        let unlockpt = Self.libc("unlockpt", FDToInt.self)
        let ptsname = Self.libc("ptsname", PTSName.self)
        master = posix_openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
            throw POSIXError(.ENOTTY)
        }
        slave = open(name, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(.ENOTTY) }
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let thread = Thread { [self] in collect() }
        thread.start()
    }

    private func collect() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(master, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            lock.lock(); output += chunk[..<count]; lock.unlock()
        }
    }

    /// Everything the editor has written to the terminal so far.
    var screen: String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    /// Types `keys` (as the user's terminal would send them).
    func type(_ keys: String) {
        let bytes = Array(keys.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits until the screen shows `text` `occurrences` times (the prompt: the editor is ready for keys).
    @discardableResult
    func waitFor(_ text: String, occurrences: Int = 1, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if screen.components(separatedBy: text).count - 1 >= occurrences { return true }
            usleep(10_000)
        }
        return false
    }

    deinit {
        close(slave)
        close(master)
    }
}

func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("rbs-line-editor-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

let libeditAvailable = Libedit.shared != nil

/// Records what the editor asked for, and answers from a fixed list.
final class RecordingCompleter: LineCompleter, @unchecked Sendable {
    let candidates: [String]
    private(set) var calls: [(line: String, word: String)] = []

    init(_ candidates: [String]) { self.candidates = candidates }

    func completions(line: String, word: String) -> [String] {
        calls.append((line, word))
        return candidates
    }
}
