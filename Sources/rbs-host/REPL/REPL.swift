import Foundation
import RBSCore

/// The root module a person talks to: reads commands line by line and answers them.
/// When standard input is not a terminal it prints no prompts, so a script can drive it.
final class REPL {
    let runtime: Runtime
    private let interactive = Terminal.isInteractive

    init(runtime: Runtime) { self.runtime = runtime }

    /// The commands, for help, completion and "did you mean".
    static let commands: [(name: String, usage: String, summary: String)] = [
        ("list", "list", "list the operations of the loaded plugins"),
        ("plugins", "plugins", "list the plugin files, loaded or failed, and why"),
        ("help", "help [COMMAND]", "show the commands, or one command's help"),
        ("quit", "quit", "leave rbs-host (Ctrl-D does too)"),
    ]

    func start() {
        if interactive {
            print(Terminal.bold("rbs-host \(RBSHost.version)") + " — \(runtime.registry.operations.count) operations from \(runtime.registry.plugins.count) plugins. Type help.")
        }
        Listing.printFailures(runtime.registry)
        while true {
            if interactive { print("rbs> ", terminator: "") }
            guard let line = readLine() else { break }
            if !handle(line) { break }
        }
    }

    /// Answers one line; returns false to quit.
    func handle(_ line: String) -> Bool {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let command = words.first else { return true }
        switch command {
        case "list": print(Listing.operations(runtime.registry.operations))
        case "plugins": print(Listing.plugins(runtime.registry.records))
        case "help": print(help(words.dropFirst().first))
        case "quit", "exit", "\\q": return false
        default:
            let suggestion = Suggestion.closest(to: command, among: Self.commands.map(\.name))
            Terminal.error("unknown command '\(command)'" + (suggestion.map { " — did you mean '\($0)'?" } ?? " — type help"))
        }
        return true
    }

    func help(_ command: String?) -> String {
        if let command {
            guard let entry = Self.commands.first(where: { $0.name == command }) else {
                return "No command '\(command)'. Type help for the list."
            }
            return "\(entry.usage)\n  \(entry.summary)"
        }
        var table = Table(header: ["COMMAND", "WHAT IT DOES"])
        table.rows = Self.commands.map { [$0.usage, $0.summary] }
        return table.render()
    }
}

