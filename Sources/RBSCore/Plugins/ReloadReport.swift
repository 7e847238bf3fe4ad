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
    /// Why a `.failed` change failed, as typed facts (for the person's language); `error` is its English text.
    public var problem: PluginLoadError?

    public var description: String {
        let took = String(format: "%.1f ms", milliseconds)
        switch change {
        case .added: return "added \(pluginID ?? path) \(newVersion ?? "") (\(path)) in \(took)"
        case .updated: return "reloaded \(pluginID ?? path) \(oldVersion ?? "?") → \(newVersion ?? "?") in \(took)"
        case .removed: return "removed \(pluginID ?? path) \(oldVersion ?? ""): its operations are withdrawn"
        case .failed: return (error ?? path) + (oldVersion.map { " — version \($0) stays in service" } ?? "")
        }
    }
}
