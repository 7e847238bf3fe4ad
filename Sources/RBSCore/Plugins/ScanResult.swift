/// What scanning one plugin file found: its manifest and the services its init() registers, or why it failed.
public enum ScanResult: Codable, Hashable, Sendable {
    case plugin(PluginManifest, services: [String])
    case failed(ScanFailure)
}
