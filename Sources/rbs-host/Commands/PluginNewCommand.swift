import ArgumentParser
import Foundation
import RBSCore

/// `rbs-host plugin new NAME --lang c|swift|rust [--dir DIR]`: writes a plugin skeleton that builds (`make` in it),
/// passes `plugin check`, and offers one operation.
struct PluginNewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new", abstract: "Write a plugin skeleton (NAME/) in C, Swift or Rust that builds with `make`.",
        discussion: """
            C and Rust skeletons get a copy of the C ABI headers (include/); a Swift skeleton depends on this checkout's \
            RBSPluginKit by path. The checkout is found from --sdk, $RBS_SDK, or the folders above this executable.
            """)

    @Argument(help: "The plugin's name: lowercase letters, digits and '-' (my-payment).") var name: String
    @Option(help: ArgumentHelp("c, swift or rust.", valueName: "lang")) var lang: String
    @Option(help: ArgumentHelp("Where to create NAME/ (default: the working directory).", valueName: "dir")) var dir: String?
    @Option(help: ArgumentHelp("The rbs-host checkout (default: $RBS_SDK, or found above this executable).", valueName: "dir"))
    var sdk: String?

    func run() throws {
        guard let language = PluginLanguage(rawValue: lang.lowercased()) else {
            throw ValidationError("--lang \(lang): choose c, swift or rust")
        }
        guard PluginSkeleton.isValidName(name) else {
            throw ValidationError("'\(name)': a plugin name is lowercase letters, digits and '-', starting with a letter (my-payment)")
        }
        guard let checkout = Self.findSDK(explicit: sdk) else {
            Terminal.error("cannot find the rbs-host checkout (Sources/CRBSPlugin/include/rbs_plugin.h) — pass --sdk /path/to/rbs-host or set RBS_SDK")
            throw ExitCode.failure
        }
        let skeleton = PluginSkeleton(name: name, sdk: checkout)
        let folder = URL(fileURLWithPath: dir ?? FileManager.default.currentDirectoryPath).appendingPathComponent(name)
        guard !FileManager.default.fileExists(atPath: folder.path) else {
            Terminal.error("\(folder.path) already exists — choose another name or --dir")
            throw ExitCode.failure
        }
        do {
            for file in skeleton.files(for: language) {
                let url = folder.appendingPathComponent(file.path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.contents.utf8).write(to: url)
            }
            if PluginSkeleton.copiesHeaders(language) { try copyHeaders(from: skeleton.includeDirectory, to: folder) }
        } catch {
            Terminal.error("cannot write \(folder.path): \((error as NSError).localizedDescription)")
            throw ExitCode.failure
        }
        print("""
            Created \(folder.path) (\(language.rawValue)): plugin \(skeleton.pluginID), operation \(skeleton.operationID).
            Next:
              cd \(folder.path) && make
              rbs-host plugin check \(name).so
              rbs-host list --dev --plugins \(folder.path)                 (try it unsigned, development mode)
              rbs-host plugin keygen ~/.rbs-publisher.key                  (once: your publisher key)
              rbs-host plugin sign \(name).so --key ~/.rbs-publisher.key   (after every build)
              RBS_HOME=DATA rbs-host trust add ~/.rbs-publisher.key.pub    (once per data folder that should load it;
                                                                            `make run` in rbs-host uses DATA=.rbs-dev/data)
              copy \(name).so and \(name).so.sig into the host's plugin folder (Plugins/)
            """)
    }

    /// Copies rbs_plugin.h and rbs/**.h (not the module map) into NAME/include.
    private func copyHeaders(from include: URL, to folder: URL) throws {
        let target = folder.appendingPathComponent("include")
        let manager = FileManager.default
        guard let walker = manager.enumerator(at: include, includingPropertiesForKeys: nil) else { return }
        for case let file as URL in walker where file.pathExtension == "h" {
            let relative = String(file.standardizedFileURL.path.dropFirst(include.standardizedFileURL.path.count + 1))
            let destination = target.appendingPathComponent(relative)
            try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try manager.copyItem(at: file, to: destination)
        }
    }

    /// The rbs-host checkout: `explicit`, then RBS_SDK, then the folders above this executable
    /// (`.build/<triple>/debug/rbs-host`), then the checkout this binary was built from.
    static func findSDK(explicit: String?) -> URL? {
        func isCheckout(_ url: URL) -> Bool {
            FileManager.default.fileExists(atPath: url.appendingPathComponent("Sources/CRBSPlugin/include/rbs_plugin.h").path)
                && FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
        }
        if let explicit { return isCheckout(URL(fileURLWithPath: explicit)) ? URL(fileURLWithPath: explicit).standardizedFileURL : nil }
        if let environment = ProcessInfo.processInfo.environment["RBS_SDK"], !environment.isEmpty {
            let url = URL(fileURLWithPath: environment)
            return isCheckout(url) ? url.standardizedFileURL : nil
        }
        var folder = PluginCheckCommand.selfExecutable.deletingLastPathComponent()
        while folder.path != "/" {
            if isCheckout(folder) { return folder.standardizedFileURL }
            folder = folder.deletingLastPathComponent()
        }
        let built = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return isCheckout(built) ? built : nil
    }
}
