import ArgumentParser
import Foundation
import RBSCore

struct REPLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "repl", abstract: "Start the interactive REPL (the default).")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let runtime = global.makeRuntime()
        let repl = REPL(runtime: runtime)
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
