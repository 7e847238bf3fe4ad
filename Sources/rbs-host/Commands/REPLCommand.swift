import ArgumentParser
import RBSCore

struct REPLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "repl", abstract: "Start the interactive REPL (the default).")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let runtime = global.makeRuntime()
        let repl = REPL(runtime: runtime)
        repl.start()
    }
}
