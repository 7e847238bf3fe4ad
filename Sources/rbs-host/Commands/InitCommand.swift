import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

/// `rbs-host init`: the explicit first start that creates the ledger (the journal and the embedded core).
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Create the ledger in the data folder (the first start; `keys init` does it too).",
        discussion: """
            Refuses where a ledger exists. With --force: adopts the database that is there as it is (recording its \
            tip; what the old tip record knew beyond it is given up), or starts a new ledger when there is none. \
            Nothing is deleted, and used one-time codes and a lock-out are kept.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Accept the database as it is, or start a new ledger where it is missing (history is given up).")
    var force = false

    func run() throws {
        do {
            let (ledger, creation) = try Ledger.create(dataDirectory: global.paths.data, location: global.paths.database, clock: { HostClock.current.now }, force: force)
            try ledger.close()
            print(HostMessage.describe(creation, global.language))
        } catch {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
    }
}
