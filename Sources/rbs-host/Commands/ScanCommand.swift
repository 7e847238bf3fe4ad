import ArgumentParser
import Foundation
import RBSCore

/// The scanner mode the host runs in a child process: loads each plugin, validates it, starts it to learn the
/// services it registers, and answers with one JSON line per file. A plugin that crashes or hangs here takes only
/// this process down; the host records it as failed.
///
/// With `--isolation plugin` the plugin itself is opened in a plugin worker (`rbs-host worker IMAGE`), started
/// exactly as the workers that serve runs are: a plugin cannot tell a scan from a run and behave well only while it
/// is scanned.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan", abstract: "Scan plugin files and print their manifests as JSON lines (used by the host).",
        shouldDisplay: false)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Plugin files.") var files: [String]

    func run() throws {
        var isolation = try global.isolationSettings()
        // Within the host's 5 s per file, so a plugin that hangs while it starts is named by its worker's fault.
        isolation.deadline = .seconds(4)
        // The child checks the bytes it opens too, so a file swapped after the host's check is refused here.
        let runtime = Runtime(paths: global.paths, clock: HostClock.current, log: StandardErrorLog(minimum: .error),
                              policy: global.trustPolicy.loadPolicy, isolation: isolation.mode == .plugin ? isolation : nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for file in files {
            FileHandle.standardOutput.write(Data("begin \(file)\n".utf8))
            let result = InProcessScanner.scanOne(file, loader: runtime.registry.loader)
            let line = (try? encoder.encode(result)).map { String(decoding: $0, as: UTF8.self) }
                ?? #"{"failed":{"_0":"the manifest could not be encoded"}}"#
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }
}
