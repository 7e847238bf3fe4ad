import ArgumentParser
import Foundation
import RBSCore
import RBSMoney

/// `rbs-host trust add|list|remove|revoke`: the publisher keys trusted to sign plugins, in `<data>/trusted-keys` — or,
/// with `--database postgres://…`, in that database's `trusted_keys` table, shared by every host that uses it. A key
/// may be trusted for some plugin ids only and until a day; a revoked key stays listed and is never trusted again.
struct TrustCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust", abstract: "Manage the publisher keys trusted to sign plugins (<data>/trusted-keys, or the shared database's with --database).",
        discussion: "Without --dev, a plugin is loaded only when <plugin>.so.sig is a valid signature of it by one of these keys, the key is not revoked, its last day (--expires) has not passed, and the plugin's id is one the key is trusted for (--ids). With --database postgres://… (or RBS_DATABASE) the keys are that database's, the same for every host using it; <data>/trusted-keys is not read then.",
        subcommands: [Add.self, List.self, Remove.self, Revoke.self], defaultSubcommand: List.self)

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Trust a publisher key.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A public key (64 hex digits), a key file from `plugin keygen`, or its .pub file.") var key: String
        @Option(help: "A name to remember the publisher by.") var name: String?
        @Option(help: ArgumentHelp("The plugin ids the key may sign, comma-separated: an id (ru.mybank.topup), every id under a prefix (ru.mybank.*), or * (every id, the default for a new key). Given again, replaces the key's ids.", valueName: "patterns"))
        var ids: String?
        @Option(help: ArgumentHelp("The last day (YYYY-MM-DD, UTC) the key is trusted, or never. Given again, replaces it.", valueName: "day"))
        var expires: String?

        func run() throws {
            do throws(TrustError) {
                let resolved = try TrustedKeys.resolve(key)
                var grant = TrustGrant()
                if let ids { grant.ids = try PluginIDPattern.list(ids).filter { $0.text != "*" } }
                if let expires {
                    if expires == "never" {
                        grant.expires = .some(nil)
                    } else {
                        do { grant.expires = try CalendarDay.parse(expires, .iso) } catch {
                            throw TrustError.badExpiry(expires, reason: error.reason)
                        }
                    }
                }
                let store = global.trustStore
                let addition = try store.add(resolved.hex, name: name ?? resolved.name, grant: grant)
                let entry = try store.entries().first { $0.key == resolved.hex }
                // A key trusted for every id with no expiry reads as it always did; a scope or term is confirmed.
                let terms = entry.map(Self.terms) ?? ""
                let what = entry.map { $0.ids.isEmpty && $0.expires == nil } == true ? "" : terms
                switch addition {
                case .added: print("trusted \(resolved.hex)\((name ?? resolved.name).map { " (\($0))" } ?? "")\(what)")
                case .updated: print("updated \(resolved.hex)\(terms)")
                case .unchanged: print("already trusted \(resolved.hex)\(what)")
                }
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
        }

        /// ": for ru.mybank.*, until 2027-01-31" — what the key is trusted for, as `trust add` confirms it.
        static func terms(_ entry: TrustedKeys.Entry) -> String {
            ": for \(entry.ids.isEmpty ? "every plugin id" : entry.ids.joined(separator: ", ")), \(entry.expires.map { "until \($0) (UTC)" } ?? "no expiry")"
        }

        /// The STATE column of `trust list`: revoked, expired, or trusted, on today's date (UTC).
        static func state(of entry: TrustedKeys.Entry, now: Date = Date()) -> String {
            if let revoked = entry.revoked { return "revoked \(revoked)" + (entry.revokedReason.map { ": \($0)" } ?? "") }
            if let today = CalendarDay.containing(now, in: .gmt), entry.isExpired(today: today) { return "expired" }
            return "trusted"
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Revoke a publisher key: nothing it signed is loaded, and it is never trusted again.",
            discussion: "The key stays listed as revoked (trust remove keeps it), so a copy of an old trusted-keys list or a mistaken `trust add` cannot bring it back. A key not trusted here can be revoked too, before anyone trusts it. Hosts refuse its plugins at their next load or reload; a plugin already in service stays until then.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The public key (hex), its name, or a key or .pub file.") var key: String
        @Option(help: "Why (kept with the revocation and shown in refusals).") var reason: String?

        func run() throws {
            do {
                let revoked = try global.trustStore.revoke(key, reason: reason)
                let entry = revoked.entry
                print(revoked.already ? "\(entry.key) was revoked already on \(entry.revoked ?? "")"
                                      : "revoked \(entry.key)\(entry.name.map { " (\($0))" } ?? ""): its plugins are refused from their next load")
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the trusted publisher keys.")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print a JSON array of {key, name, ids, expires, revoked, revokedReason} (absent: no name, no expiry, not revoked; ids [] is every id).") var json = false

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
                    var table = Table(header: ["KEY", "NAME", "IDS", "UNTIL", "STATE"])
                    for entry in entries {
                        table.rows.append([entry.key, entry.name ?? "", entry.ids.isEmpty ? "*" : entry.ids.joined(separator: ","),
                                           entry.expires ?? "", Add.state(of: entry)])
                    }
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
