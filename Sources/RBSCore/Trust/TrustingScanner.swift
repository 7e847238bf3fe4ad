import Foundation

/// A `PluginScanner` that applies a `PluginTrustPolicy` in this process before another scanner (the child-process
/// one) opens anything: a file the policy refuses is reported as failed and never handed on, and a scanned manifest
/// whose id or version is not the signed one is refused. (Loading for use goes through the loader, which checks
/// the bytes of the very copy it opens.)
public struct TrustingScanner: PluginScanner {
    public let inner: any PluginScanner
    public let policy: PluginTrustPolicy

    public init(_ inner: any PluginScanner, policy: PluginTrustPolicy) {
        self.inner = inner
        self.policy = policy
    }

    public func scan(_ paths: [String], progress: @escaping @Sendable (Int, Int) -> Void) -> [String: ScanResult] {
        var results: [String: ScanResult] = [:]
        var hashes: [String: String] = [:]
        var accepted: [String] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                accepted.append(path)  // the scanner reports an unreadable file in its own words
                continue
            }
            let bytes = [UInt8](data)
            do throws(PluginProblem) {
                try policy.verify(bytes, path: path)
                hashes[path] = PluginSignature.sha256(bytes)
                accepted.append(path)
            } catch {
                results[path] = .failed(PluginLoadError(path: path, problem: error).description)
            }
        }
        let refused = results.count
        let scanned = accepted.isEmpty ? [:] : inner.scan(accepted) { done, _ in progress(refused + done, paths.count) }
        for path in accepted {
            guard let result = scanned[path] else { continue }
            if case .plugin(let manifest, _) = result, let hash = hashes[path] {
                do throws(PluginProblem) {
                    try policy.checkManifest(manifest, path: path, sha256: hash)
                } catch {
                    results[path] = .failed(PluginLoadError(path: path, problem: error).description)
                    continue
                }
            }
            results[path] = result
        }
        return results
    }
}
