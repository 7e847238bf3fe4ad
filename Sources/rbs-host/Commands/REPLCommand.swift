import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

struct REPLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "repl", abstract: "Start the interactive REPL (the default).")

    @OptionGroup var global: GlobalOptions
    @Flag(inversion: .prefixedNo, help: "Reload changed plugins as they appear in the folder (default: on with --dev).")
    var watch: Bool?

    func run() throws {
        let runtime = try global.makeRuntime(runs: true)
        // A ledger that is missing, replaced or damaged stops the REPL before anything is shown; a fresh folder
        // starts it with a notice, so `keys init` inside can make the first start.
        do { _ = try runtime.ledger() } catch {
            guard case .firstStart(let directory) = error else {
                Terminal.error(error.description)
                throw ExitCode.failure
            }
            print(Terminal.yellow(HostMessage.firstStart(directory: directory).text(global.language)))
        }
        runtime.releaseTrack?.follow(every: global.releaseSyncInterval)
        let repl = REPL(runtime: runtime, language: global.language)
        var watcher: PluginWatcher?
        if watch ?? global.developmentMode {
            do {
                watcher = try runtime.watch { reports in
                    for report in reports { repl.notify(HostMessage.describe(report, global.language)) }
                }
            } catch {
                Terminal.error(error.description)
            }
        }
        defer { watcher?.stop() }
        // Blocking reads belong on their own thread: the REPL runs on one, the main thread waits for it.
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            repl.start()
            finished.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        finished.wait()
    }
}
