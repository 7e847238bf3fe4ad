#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libedit's readline-compatible API, bound at run time with `dlopen` + `dlsym`.
///
/// A fresh machine only has libedit's runtime (`libedit.so.2`, no headers, no `libedit.so` symlink), so the
/// package cannot link against it; the C types below are declared by hand from libedit's `readline/readline.h`.
/// GNU readline (GPL) is never loaded. All of libedit's readline state is process-global: only one
/// ``LineEditor`` drives it at a time.
struct Libedit: @unchecked Sendable {
    typealias ReadlineFn = @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    typealias StringToIntFn = @convention(c) (UnsafePointer<CChar>?) -> Int32
    typealias IntFn = @convention(c) () -> Int32
    typealias VoidFn = @convention(c) () -> Void
    typealias IntToVoidFn = @convention(c) (Int32) -> Void
    /// `char **(*rl_attempted_completion_function)(const char *text, int start, int end)`
    typealias CompletionFn = @convention(c) (UnsafePointer<CChar>?, Int32, Int32)
        -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?

    /// The library name that was loaded, for ``LineEditor/backend``.
    let soname: String

    let readline: ReadlineFn
    let addHistory: StringToIntFn
    let initialize: IntFn
    let clearHistory: VoidFn
    let stifleHistory: IntToVoidFn?
    /// `rl_forced_update_display`: redraws the prompt and the line being edited from the cursor's line.
    let forcedUpdateDisplay: IntFn?

    // Global variables: dlsym gives their address.
    let instream: UnsafeMutablePointer<UnsafeMutablePointer<FILE>?>
    let outstream: UnsafeMutablePointer<UnsafeMutablePointer<FILE>?>
    let lineBuffer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    let point: UnsafeMutablePointer<Int32>
    let attemptedCompletionFunction: UnsafeMutablePointer<CompletionFn?>
    let attemptedCompletionOver: UnsafeMutablePointer<Int32>?
    let completionAppendCharacter: UnsafeMutablePointer<Int32>?
    let catchSignals: UnsafeMutablePointer<Int32>?
    let readlineName: UnsafeMutablePointer<UnsafePointer<CChar>?>?
    let basicWordBreakCharacters: UnsafeMutablePointer<UnsafePointer<CChar>?>?
    let completerWordBreakCharacters: UnsafeMutablePointer<UnsafePointer<CChar>?>?

    /// The process-wide binding, or nil when libedit is not installed (or lacks a required symbol).
    static let shared: Libedit? = load()

    private static func load() -> Libedit? {
        #if os(macOS)
        let candidates = ["libedit.3.dylib", "libedit.dylib"]
        #else
        let candidates = ["libedit.so.2", "libedit.so"]
        #endif
        for name in candidates {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
            if let api = bind(handle, soname: name) { return api }
            dlclose(handle)
        }
        return nil
    }

    private static func bind(_ handle: UnsafeMutableRawPointer, soname: String) -> Libedit? {
        func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(handle, name) }
        func function<F>(_ name: String, _ type: F.Type) -> F? {
            guard let raw = symbol(name) else { return nil }
            return unsafeBitCast(raw, to: type)
        }
        func variable<T>(_ name: String, _ type: T.Type) -> UnsafeMutablePointer<T>? {
            symbol(name)?.assumingMemoryBound(to: type)
        }
        guard let readline = function("readline", ReadlineFn.self),
              let addHistory = function("add_history", StringToIntFn.self),
              let initialize = function("rl_initialize", IntFn.self),
              let clearHistory = function("clear_history", VoidFn.self),
              let instream = variable("rl_instream", UnsafeMutablePointer<FILE>?.self),
              let outstream = variable("rl_outstream", UnsafeMutablePointer<FILE>?.self),
              let lineBuffer = variable("rl_line_buffer", UnsafeMutablePointer<CChar>?.self),
              let point = variable("rl_point", Int32.self),
              let completion = variable("rl_attempted_completion_function", CompletionFn?.self)
        else { return nil }
        return Libedit(
            soname: soname,
            readline: readline, addHistory: addHistory, initialize: initialize, clearHistory: clearHistory,
            stifleHistory: function("stifle_history", IntToVoidFn.self),
            forcedUpdateDisplay: function("rl_forced_update_display", IntFn.self),
            instream: instream, outstream: outstream, lineBuffer: lineBuffer, point: point,
            attemptedCompletionFunction: completion,
            attemptedCompletionOver: variable("rl_attempted_completion_over", Int32.self),
            completionAppendCharacter: variable("rl_completion_append_character", Int32.self),
            catchSignals: variable("rl_catch_signals", Int32.self),
            readlineName: variable("rl_readline_name", UnsafePointer<CChar>?.self),
            basicWordBreakCharacters: variable("rl_basic_word_break_characters", UnsafePointer<CChar>?.self),
            completerWordBreakCharacters: variable("rl_completer_word_break_characters", UnsafePointer<CChar>?.self))
    }
}

/// A C string that lives for the rest of the process (libedit keeps pointers to the strings it is given).
func permanentCString(_ string: String) -> UnsafePointer<CChar> {
    UnsafePointer(strdup(string)!)
}
