import ArgumentParser
import Foundation
import RBSCore

/// `rbs-host plugin new NAME --lang c|swift|rust [--dir DIR] [--sdk DIR]`: writes a plugin skeleton from the SDK's
/// templates that builds (`make` in it), passes `plugin check`, and offers one operation.
struct PluginNewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new", abstract: "Write a plugin skeleton (NAME/) in C, Swift or Rust that builds with `make`.",
        discussion: """
            The skeleton is made from the SDK's templates (SDK/Templates/) and carries the part of the SDK it builds \
            against: C include/ (the headers), Rust rbs-plugin-abi/ (the ABI binding), Swift rbs-sdk/ (the SDK \
            package). Each is named in one place (the Makefile's RBS_INCLUDE, Cargo.toml, Package.swift's rbsSDK). \
            The SDK is found from --sdk, $RBS_SDK, or the folders above this executable.
            """)

    @Argument(help: "The plugin's name: lowercase letters, digits and '-' (my-payment).") var name: String
    @Option(help: ArgumentHelp("c, swift or rust.", valueName: "lang")) var lang: String
    @Option(help: ArgumentHelp("Where to create NAME/ (default: the working directory).", valueName: "dir")) var dir: String?
    @Option(help: ArgumentHelp("The SDK folder, or the rbs-host checkout that holds it in SDK/ (default: $RBS_SDK, or found above this executable).",
                               valueName: "dir"))
    var sdk: String?

    func run() throws {
        guard let language = PluginLanguage(rawValue: lang.lowercased()) else {
            throw ValidationError("--lang \(lang): choose c, swift or rust")
        }
        guard PluginSkeleton.isValidName(name) else {
            throw ValidationError("'\(name)': a plugin name is lowercase letters, digits and '-', starting with a letter (my-payment)")
        }
        guard let sdkFolder = Self.findSDK(explicit: sdk) else {
            Terminal.error("cannot find the rbs-host SDK (SDK/Sources/CRBSPlugin/include/rbs_plugin.h and SDK/Templates) — pass --sdk /path/to/rbs-host or set RBS_SDK")
            throw ExitCode.failure
        }
        let skeleton = PluginSkeleton(name: name, sdk: sdkFolder)
        let folder = URL(fileURLWithPath: dir ?? FileManager.default.currentDirectoryPath).appendingPathComponent(name)
        guard !FileManager.default.fileExists(atPath: folder.path) else {
            Terminal.error("\(folder.path) already exists — choose another name or --dir")
            throw ExitCode.failure
        }
        let files: [(path: String, contents: Data)]
        do { files = try skeleton.files(for: language) } catch {
            Terminal.error("cannot read the SDK's \(language.rawValue) template in \(sdkFolder.path): \((error as NSError).localizedDescription)")
            throw ExitCode.failure
        }
        do {
            for file in files {
                let url = folder.appendingPathComponent(file.path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try file.contents.write(to: url)
            }
        } catch {
            Terminal.error("cannot write \(folder.path): \((error as NSError).localizedDescription)")
            throw ExitCode.failure
        }
        let sdkPart = switch language {
        case .c: "include/ (the headers; RBS_INCLUDE in the Makefile)"
        case .rust: "rbs-plugin-abi/ (the ABI binding; its path in Cargo.toml)"
        case .swift: "rbs-sdk/ (the SDK package; rbsSDK in Package.swift)"
        }
        print("""
            Created \(folder.path) (\(language.rawValue)): plugin \(skeleton.pluginID), operation \(skeleton.operationID).
            The SDK it builds against: \(sdkPart).
            Next (Examples/README.md, "Start a plugin"):
              cd \(folder.path) && make
              rbs-host plugin check \(name).so
              rbs-host list --dev --plugins \(folder.path)    # try it unsigned, in development mode
              rbs-host plugin keygen ~/.rbs-publisher.key    # once: your publisher key
              rbs-host plugin sign \(name).so --key ~/.rbs-publisher.key    # after every build
              RBS_HOME=DATA rbs-host trust add ~/.rbs-publisher.key.pub    # once per data folder that should load it
              cp \(name).so \(name).so.sig PLUGINS/    # the host's plugin folder (make run: Plugins/ and .rbs-dev/data)
            """)
    }

    /// The SDK folder: `explicit` (the SDK folder or a checkout holding it in SDK/), then RBS_SDK, then the folders
    /// above this executable (`.build/<triple>/debug/rbs-host` in a checkout), then the checkout it was built from.
    static func findSDK(explicit: String?) -> URL? {
        func sdk(in url: URL) -> URL? {
            if PluginSkeleton.isSDK(url) { return url.standardizedFileURL }
            let nested = url.appendingPathComponent("SDK")
            return PluginSkeleton.isSDK(nested) ? nested.standardizedFileURL : nil
        }
        if let explicit { return sdk(in: URL(fileURLWithPath: explicit)) }
        if let environment = HostEnvironment.current.sdk {
            return sdk(in: URL(fileURLWithPath: environment))
        }
        var folder = PluginCheckCommand.selfExecutable.deletingLastPathComponent()
        while folder.path != "/" {
            if let found = sdk(in: folder) { return found }
            folder = folder.deletingLastPathComponent()
        }
        let built = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return sdk(in: built)
    }
}
