import Foundation

/// Reads plugin files' manifests. The host uses a child process (a plugin that crashes or hangs while it is
/// scanned takes only the child down); library tests may scan in-process.
public protocol PluginScanner: Sendable {
    /// Scans `paths`; `progress(done, total)` is called as files are done.
    func scan(_ paths: [String], progress: @escaping @Sendable (Int, Int) -> Void) -> [String: ScanResult]
}

