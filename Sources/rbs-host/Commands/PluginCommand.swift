import ArgumentParser
import Foundation
import RBSCore

/// `rbs-host plugin …`: tools for plugin authors and publishers.
struct PluginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin", abstract: "Create, check, sign and package plugins; install and uninstall packages; make publisher keys.",
        subcommands: [PluginNewCommand.self, PluginCheckCommand.self, PluginKeygenCommand.self, PluginSignCommand.self,
                      PluginCheckChildCommand.self, PluginAllowDowngradeCommand.self, PluginPackCommand.self,
                      PluginInstallCommand.self, PluginUninstallCommand.self, PluginHistoryCommand.self,
                      PluginPublishCommand.self, PluginRolloutCommand.self])
}

/// `rbs-host plugin allow-downgrade ID`: lets the next reload of a host on this data folder replace plugin ID by a
/// lower version (a rollback on purpose); without it a lower version is refused and the version in service stays.
struct PluginAllowDowngradeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "allow-downgrade",
        abstract: "Allow the next reload to replace plugin ID by a lower version (once).",
        discussion: "A running REPL or `serve` on this data folder takes the permission at its next reload (the watcher's, or `reload`); the REPL's `reload --allow-downgrade ID` does the same at once.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The plugin id (see `rbs-host plugins`).") var id: String

    func run() throws {
        let data = global.paths.data
        do {
            try Runtime.allowDowngrade(id, dataDirectory: data)
        } catch {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
        print("the next start or reload may replace \(id) by a lower version (once)")
    }
}

/// `rbs-host plugin keygen KEYFILE`: a new publisher key.
struct PluginKeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen", abstract: "Create a publisher key file (0600) and KEYFILE.pub; say what was written and the public key.",
        discussion: "A publisher key signs plugins. It is not your document-signing key (`rbs-host keys`).")

    @Argument(help: "The key file to create.") var keyFile: String
    @Option(help: "The publisher's name, written into the key and .pub files.") var name = HostEnvironment.current.user ?? "publisher"
    @Flag(help: "Replace an existing key file (plugins signed with the old key stop loading).") var force = false

    func run() throws {
        do {
            let key = PublisherKey.generate(name: name)
            try key.write(to: keyFile, force: force)
            print("""
                wrote \(keyFile) (the private key, mode 0600: keep it secret) and \(keyFile).pub (the public key)
                public key \(key.publicKeyHex)
                Next: rbs-host plugin sign PLUGIN.so --key \(keyFile)
                      rbs-host trust add \(keyFile).pub    (on each host that should load your plugins; RBS_HOME/--data picks the host's data folder)
                """)
        } catch {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
    }
}

/// `rbs-host plugin sign FILE --key KEYFILE`: writes FILE.sig.
struct PluginSignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign", abstract: "Sign a plugin: write FILE.sig with its SHA-256, id and version.",
        discussion: "The plugin's manifest is read by a sandboxed worker (the plugin's code never runs in this process, which holds the private key) so the signature names its id and version.")

    @Argument(help: "The plugin file (.so).") var file: String
    @Option(help: ArgumentHelp("The publisher key file (`rbs-host plugin keygen`).", valueName: "keyfile")) var key: String

    func run() throws {
        do {
            let publisher = try PublisherKey.load(from: key)
            // The same worker every other command loads plugins in (with its default limits): a plugin's constructor
            // or descriptor code never runs beside the publisher's private key.
            let worker = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let signature = try PluginSigner.sign(pluginAt: file, key: publisher,
                                                  isolation: IsolationSettings(mode: .plugin, workerExecutable: worker))
            print("signed \(file) (\(signature.pluginID) \(signature.version)) → \(file).sig with key \(signature.publicKey)")
        } catch {
            Terminal.error(error.description)
            throw ExitCode.failure
        }
    }
}
