import ArgumentParser

/// The global options (``GlobalOptions``: `--plugins DIR`, `--data DIR`, `--database URL`, `--isolation MODE`,
/// `--worker-timeout S`, `--lang L`, `--dev`) given before the command's name, as README writes them
/// (`rbs-host --plugins DIR list`), moved to after it (`rbs-host list --plugins DIR`), where ArgumentParser reads them:
/// each command takes them as its own options, and ArgumentParser reads a command's options only after its name.
enum GlobalArguments {
    /// The options that take a value (`--plugins DIR` or `--plugins=DIR`), and the flags.
    static let valued: Set<String> = ["--plugins", "--data", "--database", "--isolation", "--worker-timeout", "--lang"]
    static let flags: Set<String> = ["--dev"]

    /// `arguments` (the command line after the program name) with the leading global options moved to after the
    /// command's name (`journal show`'s after both words). Unchanged when none leads, or when no command name follows
    /// them (`rbs-host --lang ru` starts the REPL, which reads them where they are), or a value is missing (left to
    /// ArgumentParser's own message).
    static func hoisted(_ arguments: [String], root: any ParsableCommand.Type = RBSHostCommand.self) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if flags.contains(argument) {
                leading.append(argument)
                index += 1
            } else if valued.contains(name) {
                if argument.contains("=") {
                    leading.append(argument)
                    index += 1
                } else {
                    guard index + 1 < arguments.count else { return arguments }
                    leading += [argument, arguments[index + 1]]
                    index += 2
                }
            } else {
                break
            }
        }
        guard !leading.isEmpty else { return arguments }
        var command = root
        var end = index
        while end < arguments.count,
              let sub = command.configuration.subcommands.first(where: { names(of: $0).contains(arguments[end]) }) {
            command = sub
            end += 1
        }
        guard end > index else { return arguments }
        return Array(arguments[index..<end]) + leading + Array(arguments[end...])
    }

    /// `arguments` with an option's negative number joined to its name (`--percent -5` → `--percent=-5`): ArgumentParser
    /// reads a word that starts with a dash as the next option, so `--percent -5` said "Missing value for '--percent'"
    /// where the value is there and the command's own check says what is wrong with it. Only a dash followed by a digit
    /// (or a decimal separator and a digit) after a long option is joined; a positional argument stays as it is.
    static func negativeValuesJoined(_ arguments: [String]) -> [String] {
        var result: [String] = []
        result.reserveCapacity(arguments.count)
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--"), argument.count > 2, !argument.contains("="), index + 1 < arguments.count,
               looksNegative(arguments[index + 1]) {
                result.append(argument + "=" + arguments[index + 1])
                index += 2
            } else {
                result.append(argument)
                index += 1
            }
        }
        return result
    }

    /// `-5`, `-0.5`, `-,5`: a minus sign and a number, not an option's name.
    static func looksNegative(_ word: String) -> Bool {
        let scalars = Array(word.unicodeScalars)
        guard scalars.count >= 2, scalars[0] == "-" else { return false }
        let first = scalars[1]
        if ("0"..."9").contains(first) { return true }
        return (first == "." || first == ",") && scalars.count >= 3 && ("0"..."9").contains(scalars[2])
    }

    /// A command's name and its aliases, as a command line spells them.
    private static func names(of command: any ParsableCommand.Type) -> [String] {
        let configuration = command.configuration
        return [configuration.commandName ?? String(describing: command).lowercased()] + configuration.aliases
    }
}
