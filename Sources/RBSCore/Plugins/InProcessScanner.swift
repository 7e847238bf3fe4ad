import Foundation

/// Scans in this process (no protection from a crashing plugin): for tests and tools.
public struct InProcessScanner: PluginScanner {
    let loader: PluginLoader

    public init(loader: PluginLoader) { self.loader = loader }

    public func scan(_ paths: [String], progress: @escaping @Sendable (Int, Int) -> Void) -> [String: ScanResult] {
        var results: [String: ScanResult] = [:]
        for (index, path) in paths.enumerated() {
            results[path] = Self.scanOne(path, loader: loader)
            progress(index + 1, paths.count)
        }
        return results
    }

    /// Loads, validates and starts one plugin to learn its manifest and services, then stops it.
    public static func scanOne(_ path: String, loader: PluginLoader) -> ScanResult {
        do {
            let image = try loader.load(path: path)
            defer { image.stop(locator: loader.locator) }
            do { try image.start() } catch { return .failed(.refused(error)) }
            return .plugin(image.manifest, services: (image.hostTable.registered.map(\.id) + image.workerServices).sorted())
        } catch {
            return .failed(.refused(error.problem))
        }
    }
}
