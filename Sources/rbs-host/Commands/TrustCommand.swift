import ArgumentParser
import Foundation
import RBSCore

/// `rbs-host trust add|list|remove`: the publisher keys trusted to sign plugins, in `<data>/trusted-keys`.
struct TrustCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust", abstract: "Manage the publisher keys trusted to sign plugins (<data>/trusted-keys).",
        discussion: "Without --dev, a plugin is loaded only when <plugin>.so.sig is a valid signature of it by one of these keys.",
        subcommands: [Add.self, List.self, Remove.self], defaultSubcommand: List.self)

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Trust a publisher key.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A public key (64 hex digits), a key file from `plugin keygen`, or its .pub file.") var key: String
        @Option(help: "A name to remember the publisher by.") var name: String?

        func run() throws {
            do {
                let resolved = try TrustedKeys.resolve(key)
                var store = try TrustedKeys(dataDirectory: global.paths.data)
                let added = try store.add(resolved.hex, name: name ?? resolved.name)
                print(added ? "trusted \(resolved.hex)\((name ?? resolved.name).map { " (\($0))" } ?? "")"
                            : "already trusted \(resolved.hex)")
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the trusted publisher keys.")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print a JSON array of {key, name}.") var json = false

        func run() throws {
            do {
                let store = try TrustedKeys(dataDirectory: global.paths.data)
                if json {
                    JSONOutput.print(store.entries)
                } else if store.entries.isEmpty {
                    print("No trusted publisher keys. Add one with `rbs-host trust add KEY`.")
                } else {
                    var table = Table(header: ["KEY", "NAME"])
                    for entry in store.entries { table.rows.append([entry.key, entry.name ?? ""]) }
                    print(table.render())
                }
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Stop trusting a publisher key.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The public key (hex), its name, or a key or .pub file.") var key: String

        func run() throws {
            do {
                var store = try TrustedKeys(dataDirectory: global.paths.data)
                let removed = try store.remove(key)
                print("removed \(removed.key)\(removed.name.map { " (\($0))" } ?? "")")
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
        }
    }
}
