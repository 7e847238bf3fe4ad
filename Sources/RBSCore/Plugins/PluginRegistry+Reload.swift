import CRBSPlugin
import Crypto
import Foundation

/// What one reload did to one plugin file: the REPL prints it as one line.
public struct ReloadReport: Sendable, CustomStringConvertible {
    public enum Change: String, Sendable { case added, updated, removed, failed }
    public var change: Change
    public var path: String
    public var pluginID: String?
    public var oldVersion: String?
    public var newVersion: String?
    public var milliseconds: Double
    public var error: String?

    public var description: String {
        let took = String(format: "%.1f ms", milliseconds)
        switch change {
        case .added: return "loaded \(pluginID ?? path) \(newVersion ?? "") from \(path) in \(took)"
        case .updated: return "reloaded \(pluginID ?? path) \(oldVersion ?? "?") → \(newVersion ?? "?") in \(took)"
        case .removed: return "removed \(pluginID ?? path) \(oldVersion ?? ""): its operations are withdrawn"
        case .failed:
            return (error ?? path) + (oldVersion.map { " — version \($0) stays in service" } ?? "")
        }
    }
}

extension PluginRegistry {
    /// Brings the registry in line with the plugin folder: loads new files, replaces changed ones (new runs get the
    /// new version; running modules finish on the old one), withdraws removed ones. A new version that fails to load
    /// leaves the last working one in service.
    /// - Parameter only: reload just the plugin with this id (or file path).
    @discardableResult
    public func rescan(_ directory: String, only: String? = nil) -> [ReloadReport] {
        var reports: [ReloadReport] = []
        let files = (try? Self.pluginFiles(in: directory)) ?? []
        let present = Set(files)
        for plugin in plugins where !present.contains(plugin.path) && matches(plugin, only) {
            withdraw(plugin)
            records.removeAll { $0.path == plugin.path }
            reports.append(ReloadReport(change: .removed, path: plugin.path, pluginID: plugin.id,
                                        oldVersion: plugin.version, milliseconds: 0))
        }
        for path in files {
            let current = plugins.first { $0.path == path }
            if let only, current.map({ !matches($0, only) }) ?? (path != only && !path.hasSuffix("/" + only)) { continue }
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { continue }
            let hash = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            if let current, current.contentHash == hash { continue }
            if current == nil, records.contains(where: { $0.path == path && $0.status == .failed && $0.contentHash == hash }) {
                continue  // failed before, unchanged since: not tried again
            }
            let start = ContinuousClock.now
            do {
                let image = try loader.load(path: path)
                try register(image, replacing: current)
                let elapsed = start.duration(to: .now)
                setRecord(PluginRecord(path: path, id: image.id, version: image.version,
                                       abi: image.manifest.abi.description, status: .loaded, error: nil))
                reports.append(ReloadReport(change: current == nil ? .added : .updated, path: path, pluginID: image.id,
                                            oldVersion: current?.version, newVersion: image.version,
                                            milliseconds: Self.milliseconds(elapsed)))
            } catch {
                if current == nil {
                    var record = PluginRecord(path: path, id: nil, version: nil, abi: nil, status: .failed,
                                              error: error.description)
                    record.contentHash = hash
                    setRecord(record)
                }
                reports.append(ReloadReport(change: .failed, path: path, pluginID: current?.id,
                                            oldVersion: current?.version, milliseconds: Self.milliseconds(start.duration(to: .now)),
                                            error: error.description))
            }
        }
        collectRetired()
        return reports
    }

    /// Stops replaced or removed versions that no running module uses any more (C images are unloaded then).
    public func collectRetired() {
        let idle = retired.filter { $0.liveModules == 0 }
        retired.removeAll { $0.liveModules == 0 }
        for image in idle { image.stop(locator: locator) }
    }

    private func matches(_ plugin: PluginImage, _ only: String?) -> Bool {
        guard let only else { return true }
        return plugin.id == only || plugin.path == only || plugin.path.hasSuffix("/" + only)
    }

    private func setRecord(_ record: PluginRecord) {
        if let index = records.firstIndex(where: { $0.path == record.path }) {
            records[index] = record
        } else {
            records.append(record)
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
