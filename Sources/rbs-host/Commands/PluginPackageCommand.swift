import ArgumentParser
import Foundation
import RBSCore

/// `rbs-host plugin pack`: one signed package file of a plugin (``PluginPackage``).
struct PluginPackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack", abstract: "Make one signed package of a plugin: its objects by architecture and a manifest (texts, changelog, ABI range, services).",
        discussion: "The id and version are read from the object for this host's architecture (in a sandboxed worker, as `plugin sign` does). Each object is signed, then the whole package. Install it with `rbs-host plugin install FILE`.")

    @OptionGroup var global: GlobalOptions
    @Option(name: .customLong("so"), help: ArgumentHelp("An object for one architecture: ARCH=PATH (x86_64, aarch64, riscv64); repeat for each. This host's is required.", valueName: "arch=path"))
    var objects: [String] = []
    @Option(help: ArgumentHelp("The publisher key file (`rbs-host plugin keygen`).", valueName: "keyfile")) var key: String
    @Option(help: ArgumentHelp("The title in one language: LANG=TEXT (repeat per language).", valueName: "lang=text")) var title: [String] = []
    @Option(help: ArgumentHelp("The description in one language: LANG=TEXT (repeat per language).", valueName: "lang=text")) var description: [String] = []
    @Option(help: ArgumentHelp("A file with the changelog (text).", valueName: "file")) var changelog: String
    @Option(help: ArgumentHelp("The publisher's name (default: the key's name).", valueName: "name")) var publisher: String?
    @Option(help: ArgumentHelp("A service the plugin uses (rbs.accounts/1, …); repeat for each.", valueName: "service")) var uses: [String] = []
    @Option(name: .customLong("abi-min"), help: ArgumentHelp("The lowest host ABI it runs on, MAJOR.MINOR (default: the ABI it was built against).", valueName: "version")) var abiMin: String?
    @Option(name: .customLong("abi-below"), help: ArgumentHelp("The first host ABI it does not run on, MAJOR.MINOR (default: the next major).", valueName: "version")) var abiBelow: String?
    @Option(name: [.short, .long], help: ArgumentHelp("The package file to write (default: ID-VERSION.rbspkg).", valueName: "file")) var output: String?

    func run() throws {
        let language = global.language
        try PackageRefusal.exit(language) { () throws(PackageError) in
            let changes: String
            do { changes = try String(contentsOfFile: changelog, encoding: .utf8) } catch {
                throw PackageError.io(path: changelog, reason: (error as NSError).localizedDescription)
            }
            let publisherKey: PublisherKey
            do throws(TrustError) { publisherKey = try PublisherKey.load(from: key) } catch { throw PackageError.signing(error) }
            let request = PackRequest(objects: try PackRequest.objects(objects), key: publisherKey, publisher: publisher,
                                      texts: try PackRequest.texts(titles: title, descriptions: description),
                                      services: uses, changelog: changes, abiMin: abiMin, abiBelow: abiBelow)
            let worker = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let (bytes, manifest) = try PluginPackager.pack(request, isolation: IsolationSettings(mode: .plugin, workerExecutable: worker))
            let file = output ?? "\(manifest.id)-\(manifest.version).\(PluginPackage.fileExtension)"
            do { try Data(bytes).write(to: URL(fileURLWithPath: file), options: .atomic) } catch {
                throw PackageError.io(path: file, reason: (error as NSError).localizedDescription)
            }
            print(HostMessage.packed(manifest, file: file, key: publisherKey.publicKeyHex, language))
        }
    }
}

/// `rbs-host plugin install PKG`: verifies a package and places its plugin in the plugin folder.
struct PluginInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install", abstract: "Verify a plugin package and place its plugin in the plugin folder (atomically).",
        discussion: "Checks the package's signature against the trusted keys (the key's ids and expiry too, also with --dev), the manifest against the object's own descriptor, this host's architecture and ABI. A lower version than the one installed or last in service is refused unless --allow-downgrade. A running host picks the plugin up at its next reload.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The package file (.rbspkg).") var package: String
    @Flag(name: .customLong("allow-downgrade"), help: "Install a lower version than the one installed or last in service (a rollback on purpose).")
    var allowDowngrade = false

    func run() throws {
        let language = global.language
        let isolation = try global.isolationSettings()
        try PackageRefusal.exit(language) { () throws(PackageError) in
            let policy = PluginTrustPolicy(dataDirectory: global.paths.data, location: global.paths.database, development: false)
            let change = try PluginPackager.install(packageAt: package, folder: global.paths.plugins,
                                                    dataDirectory: global.paths.data, policy: policy, isolation: isolation,
                                                    allowDowngrade: allowDowngrade,
                                                    by: PluginHistory.user(HostEnvironment.current.user))
            print(HostMessage.describe(change, language))
        }
    }
}

/// `rbs-host plugin uninstall ID`: removes an installed plugin from the plugin folder.
struct PluginUninstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall", abstract: "Remove plugin ID from the plugin folder (a running host withdraws it at its next reload).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The plugin id (see `rbs-host plugins`).") var id: String

    func run() throws {
        let language = global.language
        try PackageRefusal.exit(language) { () throws(PackageError) in
            let change = try PluginPackager.uninstall(id, folder: global.paths.plugins, dataDirectory: global.paths.data,
                                                      by: PluginHistory.user(HostEnvironment.current.user))
            print(HostMessage.describe(change, language))
        }
    }
}

/// `rbs-host plugin history`: the installs, downgrades and uninstalls on this data folder.
struct PluginHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "List plugin installs, downgrades and uninstalls on this data folder (DATA/plugin-history).")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print the entries as JSON.") var json = false

    func run() throws {
        let language = global.language
        try PackageRefusal.exit(language) { () throws(PackageError) in
            let history = PluginHistory(dataDirectory: global.paths.data)
            let (entries, unreadable) = try history.entries()
            if !unreadable.isEmpty {
                Terminal.error(HostMessage.unreadableHistory(history.path, lines: unreadable, language),
                               label: HostMessage.historyWarningLabel(language))
            }
            if json { JSONOutput.print(entries) } else { print(HostMessage.render(entries, language)) }
        }
    }
}

/// How the package commands end on a refusal: its text in the person's language on standard error, exit status 1.
enum PackageRefusal {
    static func exit(_ language: HostLanguage, _ body: () throws(PackageError) -> Void) throws {
        do { try body() } catch {
            Terminal.error(HostMessage.describe(error, language), label: HostMessage.errorLabel.text(language))
            throw ExitCode.failure
        }
    }
}
