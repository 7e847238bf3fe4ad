import ArgumentParser
import RBSCore

struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "plugins",
                                                    abstract: "List every plugin file found, loaded or failed, and why.")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print a JSON array of {path, id, version, abi, status, error}.") var json = false

    func run() throws {
        let runtime = try global.makeRuntime()
        if json {
            JSONOutput.print(runtime.registry.records)
        } else {
            print(Listing.plugins(runtime.registry.records, language: global.language))
        }
    }
}
