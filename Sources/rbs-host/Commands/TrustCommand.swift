import ArgumentParser
import Foundation
import RBSCore

/// `rbs-host trust add|list|remove`: the publisher keys trusted to sign plugins, in `<data>/trusted-keys` — or, with
/// `--database postgres://…`, in that database's `trusted_keys` table, shared by every host that uses it.
struct TrustCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust", abstract: "Manage the publisher keys trusted to sign plugins (<data>/trusted-keys, or the shared database's with --database).",
        discussion: "Without --dev, a plugin is loaded only when <plugin>.so.sig is a valid signature of it by one of these keys. With --database postgres://… (or RBS_DATABASE) the keys are that database's, the same for every host using it; <data>/trusted-keys is not read then.",
        subcommands: [Add.self, List.self, Remove.self], defaultSubcommand: List.self)

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Trust a publisher key.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A public key (64 hex digits), a key file from `plugin keygen`, or its .pub file.") var key: String
        @Option(help: "A name to remember the publisher by.") var name: String?

        func run() throws {
            do {
                let resolved = try TrustedKeys.resolve(key)
                let added = try global.trustStore.add(resolved.hex, name: name ?? resolved.name)
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
                let store = global.trustStore
                let entries = try store.entries()
                if json {
                    JSONOutput.print(entries)
                    return
                }
                if store.isShared { print("Trusted publisher keys in \(store.place), shared by every host using it:") }
                if entries.isEmpty {
                    print("No trusted publisher keys. Add one with `rbs-host trust add KEY`.")
                } else {
                    var table = Table(header: ["KEY", "NAME"])
                    for entry in entries { table.rows.append([entry.key, entry.name ?? ""]) }
                    print(table.render())
                }
                if store.isShared, let local = try? TrustedKeys(dataDirectory: global.paths.data), !local.entries.isEmpty {
                    Terminal.note("note: \(local.path) (\(local.entries.count) key\(local.entries.count == 1 ? "" : "s")) is not read while the ledger is in a shared database — add a key there with `rbs-host trust add KEY --database …`")
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
                let removed = try global.trustStore.remove(key)
                print("removed \(removed.key)\(removed.name.map { " (\($0))" } ?? "")")
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
        }
    }
}
