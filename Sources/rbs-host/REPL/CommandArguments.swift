import Foundation

/// A REPL command's words split into positional arguments, `--option VALUE` pairs and `--flag`s, as the command
/// line subcommands take them (`statement 1 --from 01.11.2026 --json`; `--option=VALUE` works too).
struct CommandArguments {
    /// Why the words cannot be read.
    enum Problem: Error, CustomStringConvertible {
        case unknownOption(String, command: String, known: [String])
        case missingValue(String)
        case usage(String)

        var description: String {
            switch self {
            case .unknownOption(let option, let command, let known):
                "\(command) has no option \(option)" + (known.isEmpty ? "" : " (it takes \(known.joined(separator: ", ")))")
            case .missingValue(let option): "\(option) needs a value"
            case .usage(let usage): "usage: \(usage)"
            }
        }
    }

    var positional: [String] = []
    var values: [String: String] = [:]
    var flags: Set<String> = []

    /// Reads `words` for `command`: `options` take a value, `flags` do not; anything else starting `--` is refused.
    init(_ words: [String], command: String, options: [String] = [], flags known: [String] = []) throws(Problem) {
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            guard word.hasPrefix("--"), word.count > 2 else {
                positional.append(word)
                continue
            }
            if let equals = word.firstIndex(of: "="), options.contains(String(word[..<equals])) {
                values[String(word[..<equals])] = String(word[word.index(after: equals)...])
            } else if options.contains(word) {
                guard index < words.count else { throw .missingValue(word) }
                values[word] = words[index]
                index += 1
            } else if known.contains(word) {
                flags.insert(word)
            } else {
                throw .unknownOption(word, command: command, known: options + known)
            }
        }
    }
}
