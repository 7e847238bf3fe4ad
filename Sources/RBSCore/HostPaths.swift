import Foundation
import RBSLedger

/// Where the host reads plugins from and keeps its data.
public struct HostPaths: Sendable {
    /// The plugin folder, as given (so messages name files the way the person wrote them).
    public var plugins: String
    /// The data directory: keys, journal, history, plugin images.
    public var data: URL
    /// Where the ledger's tables are: the data folder's SQLite file, or a PostgreSQL database (`--database`,
    /// `RBS_DATABASE`).
    public var database: LedgerLocation

    public init(plugins: String, data: URL, database: LedgerLocation = .dataFolder) {
        self.plugins = plugins
        self.data = data
        self.database = database
    }

    /// `RBS_PLUGINS` and `RBS_HOME` from the process's environment as it is now, alone: read with `getenv`, not by
    /// copying the whole environment into a dictionary (ProcessInfo's `environment`), which a start did once per
    /// path it resolved.
    public static var environment: [String: String] {
        var values: [String: String] = [:]
        for name in ["RBS_PLUGINS", "RBS_HOME"] { values[name] = getenv(name).map { String(cString: $0) } }
        return values
    }

    /// `--plugins` wins, then `RBS_PLUGINS`, then `Plugins/` in the working directory; `--data` wins, then
    /// `RBS_HOME`, then `~/.rbs`.
    /// `database` is resolved by the caller (``LedgerLocation/resolve(flag:environment:)``, which can refuse).
    public static func resolve(plugins: String?, data: String?, database: LedgerLocation = .dataFolder,
                               environment: [String: String] = HostPaths.environment) -> HostPaths {
        let pluginDirectory = plugins ?? environment["RBS_PLUGINS"].flatMap { $0.isEmpty ? nil : $0 } ?? "Plugins"
        let dataDirectory: URL
        if let data {
            dataDirectory = URL(fileURLWithPath: data)
        } else if let home = environment["RBS_HOME"], !home.isEmpty {
            dataDirectory = URL(fileURLWithPath: home)
        } else {
            dataDirectory = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".rbs")
        }
        return HostPaths(plugins: pluginDirectory, data: dataDirectory, database: database)
    }

    /// Where the unique copies of plugin images go.
    public var images: URL { data.appendingPathComponent("images") }
}
