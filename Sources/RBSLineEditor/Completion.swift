import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Supplies tab-completion candidates.
///
/// Called on the thread that is reading (inside libedit), with the line typed so far (up to the cursor) and
/// the word being completed (the text after the last blank or quote before the cursor). Return the
/// candidates that start with `word`; others are dropped, duplicates too. One candidate completes fully,
/// followed by a space; several complete to their longest common prefix, and a second Tab lists them.
public protocol LineCompleter: AnyObject {
    func completions(line: String, word: String) -> [String]
}

/// A ``LineCompleter`` made of a closure.
public final class ClosureCompleter: LineCompleter {
    private let body: (_ line: String, _ word: String) -> [String]

    public init(_ body: @escaping (_ line: String, _ word: String) -> [String]) {
        self.body = body
    }

    public func completions(line: String, word: String) -> [String] {
        body(line, word)
    }
}

enum Completion {
    /// The candidates that start with `word`, without duplicates, in the completer's order.
    static func filter(_ candidates: [String], word: String) -> [String] {
        var seen = Set<String>()
        return candidates.filter { $0.hasPrefix(word) && seen.insert($0).inserted }
    }

    /// The longest common prefix of `strings`, by characters.
    static func commonPrefix(_ strings: [String]) -> String {
        guard var prefix = strings.first else { return "" }
        for string in strings.dropFirst() {
            prefix = String(zip(prefix, string).prefix { $0 == $1 }.map(\.0))
        }
        return prefix
    }

    /// The readline convention: entry 0 is what replaces the word (the single match, or the common prefix),
    /// then the matches, then NULL; everything `malloc`ed, since libedit frees it.
    static func readlineMatches(_ matches: [String], word: String)
        -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        guard !matches.isEmpty else { return nil }
        // libedit's fn_complete reads matches[2] to decide "single match" (and then appends the space), so a
        // single match is given as [match, match, NULL]: with only [match, NULL] it read past the array.
        let entries = matches.count == 1 ? [matches[0], matches[0]] : [commonPrefix(matches)] + matches
        let array = malloc(MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * (entries.count + 2))!
            .assumingMemoryBound(to: UnsafeMutablePointer<CChar>?.self)
        for (index, entry) in entries.enumerated() { array[index] = strdup(entry) }
        array[entries.count] = nil
        array[entries.count + 1] = nil
        return array
    }

    // The completer of the editor that is reading: a @convention(c) callback cannot capture context.
    private static let lock = NSLock()
    nonisolated(unsafe) private static var current: (any LineCompleter)?

    static func setCurrent(_ completer: (any LineCompleter)?) {
        lock.lock(); defer { lock.unlock() }
        current = completer
    }

    static func currentCompleter() -> (any LineCompleter)? {
        lock.lock(); defer { lock.unlock() }
        return current
    }

    /// Installed as `rl_attempted_completion_function`.
    static let callback: Libedit.CompletionFn = { text, _, _ in
        guard let api = Libedit.shared else { return nil }
        // Never fall back to libedit's file-name completion.
        api.attemptedCompletionOver?.pointee = 1
        guard let completer = Completion.currentCompleter() else { return nil }
        let word = text.map { String(cString: $0) } ?? ""
        var line = ""
        if let buffer = api.lineBuffer.pointee {
            let count = max(0, Int(api.point.pointee))
            let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
            line = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        let matches = filter(completer.completions(line: line, word: word), word: word)
        return readlineMatches(matches, word: word)
    }
}
