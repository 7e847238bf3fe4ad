/// What is wrong with a plugin. Each description says what to do about it.
public enum PluginProblem: Error, CustomStringConvertible, Sendable, Hashable, Codable {
    /// What a `*.so` name in the plugin folder is when it is not a plugin file.
    public enum NotAFile: Sendable, Hashable, Codable {
        case directory
        case danglingLink(target: String)
        case linkLoop
        /// A FIFO, a socket or a device.
        case special
    }

    case unreadable(String)
    /// The plugin folder itself cannot be listed.
    case unreadableFolder(String)
    case notAFile(NotAFile)
    /// Not a whole ELF shared object for this machine (found before `dlopen` sees it).
    case image(ELFImage.Problem)
    case dlopen(String)
    case noEntry
    case entryReturnedNull
    case abiMajor(plugin: ABIVersion, host: ABIVersion)
    /// The plugin lists in `rbs.requirements/1` a feature this host lacks.
    case missingFeature(feature: String, plugin: ABIVersion, host: ABIVersion)
    /// A descriptor field is wrong: `location` says where ("operation 'pay.x' atom 'amount'"), `issue` what.
    case descriptor(location: String, issue: String)
    case missingSymbol(location: String, symbol: String)
    case expression(location: String, issue: String)
    case duplicatePlugin(id: String, otherPath: String)
    case duplicateOperation(id: String, otherPath: String)
    case initFailed
    /// The child process that scans new files gave no manifest (a crash, a hang).
    indirect case scanFailed(ScanFailure)
    /// The worker process that was to serve the plugin (`--isolation plugin`) failed to start it; the reason is
    /// what the worker said over its wire, or how it ended.
    case workerFailed(String)
    /// In service, but its worker failed too often: its operations do not open (the reason says how often, and
    /// when it is tried again).
    case quarantined(String)
    /// The trust policy refused the file.
    case untrusted(TrustRefusal)
    /// The file holds a lower version of a plugin in service, and the operator did not allow that downgrade.
    case downgrade(id: String, from: String, to: String)
    /// The file holds a lower version of a plugin than the one last in service on this data folder (a start), and
    /// the operator did not allow that downgrade.
    case downgradeFromLastRun(id: String, from: String, to: String)

    public var description: String {
        switch self {
        case .unreadable(let why): "cannot read the file (\(why)) — check that it exists and is readable"
        case .unreadableFolder(let why): "cannot read the plugin folder (\(why)) — check --plugins or RBS_PLUGINS"
        case .notAFile(.directory): "is a directory, not a plugin file — remove it or rename it without .so"
        case .notAFile(.danglingLink(let target)):
            "is a symbolic link to \(target), which does not exist — fix the link or remove it"
        case .notAFile(.linkLoop): "is a symbolic link that loops back on itself — fix the link or remove it"
        case .notAFile(.special): "is not a regular file (a FIFO, a socket or a device) — remove it"
        case .image(let problem): problem.description
        case .dlopen(let why): "dlopen failed: \(why) — check the libraries the plugin needs (ldd)"
        case .noEntry:
            "no entry symbol \(PluginLoader.entrySymbol) — export `RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void)`"
        case .entryReturnedNull: "\(PluginLoader.entrySymbol)() returned NULL — return a pointer to a static rbs_plugin_entry_t"
        case .abiMajor(let plugin, let host):
            "ABI \(plugin.short) is not compatible with this host's ABI \(host.short) — rebuild the plugin against rbs_plugin.h \(host.major).x"
        case .missingFeature(let feature, let plugin, let host):
            "the plugin requires \(feature), which this host (ABI \(host.short)) does not offer; it was built against ABI \(plugin.short) — update rbs-host, or use a version of the plugin that does not need \(feature)"
        case .descriptor(let location, let issue): "\(location): \(issue) — fix the plugin's descriptor"
        case .missingSymbol(let location, let symbol):
            "\(location): the image does not export the symbol '\(symbol)' — export it with RBS_EXPORT (or @_cdecl in Swift)"
        case .expression(let location, let issue): "\(location): \(issue)"
        case .duplicatePlugin(let id, let otherPath):
            "plugin id '\(id)' is already used by \(otherPath) — remove one of the two files"
        case .duplicateOperation(let id, let otherPath):
            "operation id '\(id)' is already offered by \(otherPath) — give the operation another id or remove one plugin"
        case .initFailed: "the plugin's init() refused to start — see the plugin's log lines above"
        case .workerFailed(let why): "the plugin's worker \(why)"
        case .quarantined(let reason): reason
        case .scanFailed(let failure): failure.description
        case .untrusted(let refusal): refusal.description
        case .downgradeFromLastRun(let id, let from, let to):
            "is version \(to) of \(id), lower than version \(from) last in service on this data folder: a downgrade is refused — to roll back on purpose, allow it by name (`rbs-host plugin allow-downgrade \(id)`, then start again, or `reload --allow-downgrade \(id)` in the REPL), else put a version \(from) or later in its place"
        case .downgrade(let id, let from, let to):
            "is version \(to) of \(id), lower than version \(from) in service: a downgrade is refused — to roll back on purpose, allow it by name (`reload --allow-downgrade \(id)` in the REPL, `rbs-host plugin allow-downgrade \(id)` for the next start or reload), else put a version \(from) or later in its place"
        }
    }
}
