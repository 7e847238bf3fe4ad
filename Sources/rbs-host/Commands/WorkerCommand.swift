import ArgumentParser
import Foundation
import RBSCore

/// A plugin worker (started by the host, never by hand): `dlopen`s one plugin image and serves its operations over
/// descriptor 3. See `PluginWorker`.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker", abstract: "Serve one plugin image to the host over descriptor 3 (started by the host).",
        shouldDisplay: false)

    @Option(name: .customLong("limit-as"), help: "Address-space limit in MiB (0: none).") var addressSpace = 0
    @Option(name: .customLong("limit-cpu"), help: "CPU-time limit in seconds (0: none).") var cpu = 0
    @Option(name: .customLong("limit-files"), help: "Open-descriptor limit (0: none).") var files = 0
    @Option(name: .customLong("limit-processes"), help: "Process and thread limit of the worker's own user (0: none).")
    var processes = 0
    @Argument(help: "The plugin image.") var image: String

    func run() throws {
        let limits = PluginWorker.Limits(addressSpaceMiB: addressSpace, cpuSeconds: cpu, openFiles: files, processes: processes)
        let status = PluginWorker.run(image: image, limits: limits)
        throw ExitCode(status)
    }
}

/// `--isolation none|plugin`.
extension IsolationSettings.Mode: ExpressibleByArgument {}
extension HostLanguage: ExpressibleByArgument {}
