import ArgumentParser
import Foundation
import RBSLedger

/// `rbs-host db`: the ledger's database as an operator sees it — `db check` (can it be reached, which schema,
/// where the journal ends) and `db migrate` (apply the schema steps it lacks), for the data folder's SQLite file
/// and for a PostgreSQL database (`--database` / `RBS_DATABASE`) alike.
struct DatabaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db", abstract: "Check the ledger's database (connection, schema, chain tip) or bring its schema up to date.",
        subcommands: [Check.self, Migrate.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Connect to the ledger's database and show its engine, place, schema version and chain tip.",
            discussion: "Changes nothing. Exits 1 when the database cannot be opened, or when schema steps this host expects are not applied yet (`db migrate` applies them).")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print the report as JSON.") var json = false

        func run() throws {
            let status: Ledger.DatabaseStatus
            do {
                status = try Ledger.checkDatabase(dataDirectory: global.paths.data, location: global.paths.database)
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
            if json { JSONOutput.print(status) } else { print(DatabaseText.render(status)) }
            if !status.upToDate { throw ExitCode.failure }
        }
    }

    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Apply the schema steps the ledger's database lacks (under a lock: hosts starting at once apply each step once).",
            discussion: "An SQLite file must exist (`rbs-host init` makes it). A PostgreSQL database without the ledger's tables is given them (a new ledger, as `init` would).")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            do {
                let applied = try Ledger.migrateDatabase(dataDirectory: global.paths.data, location: global.paths.database)
                let status = try Ledger.checkDatabase(dataDirectory: global.paths.data, location: global.paths.database)
                print(applied.isEmpty
                      ? "\(status.place): the schema is up to date (\(status.schemaVersion ?? "-")); nothing to apply"
                      : "\(status.place): applied \(applied.joined(separator: ", ")); the schema is now \(status.schemaVersion ?? "-")")
            } catch {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
        }
    }
}

/// `db check`'s report for people.
enum DatabaseText {
    static func render(_ status: Ledger.DatabaseStatus) -> String {
        let expected = status.expectedSteps.count
        var schema: String
        if status.upToDate {
            schema = "\(status.schemaVersion ?? "-") (\(expected) of \(expected) steps applied; up to date)"
        } else {
            schema = "\(status.schemaVersion ?? "none") (\(expected - status.pendingSteps.count) of \(expected) steps applied): "
                + "not up to date — \(status.pendingSteps.joined(separator: ", ")) pending; run `rbs-host db migrate`"
        }
        let unknown = status.appliedSteps.filter { !status.expectedSteps.contains($0) }
        if !unknown.isEmpty {
            schema += "; also applied: \(unknown.joined(separator: ", ")), which this host does not know (a newer host migrated this database: upgrade this one)"
        }
        let tip: String = switch (status.tipSequence, status.tipHash) {
        case (0?, _): "empty journal"
        case (let sequence?, let hash?): "entry \(sequence) (hash \(hash)…)"
        default: "no ledger tables"
        }
        let rows: [(String, String)] = [
            ("engine", status.engine),
            ("place", status.place),
            ("connection", "ok"),
            ("schema", schema),
            ("ledger", status.ledgerId ?? "-"),
            ("chain tip", tip),
        ]
        return rows.map { label, value in label.padding(toLength: 11, withPad: " ", startingAt: 0) + value }
            .joined(separator: "\n")
    }
}
