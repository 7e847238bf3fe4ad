import Foundation

/// The version of each plugin id last put in service by a host on this data folder (`DATA/plugin-versions`, one
/// `<id> <version>` a line), so that a start, not only a reload, refuses a lower version of an installed plugin that
/// the operator did not allow by name (issue #32 item 2). A rollback the operator allows is recorded too: the version
/// allowed is the one in service from then on.
///
/// Hosts on one data folder (a REPL, `serve`, one-shot commands) share the file: each write reads it first and
/// changes only the ids this host put in service, replacing the file atomically.
final class PluginVersionRecord: @unchecked Sendable {
    static let fileName = "plugin-versions"

    let path: String
    private let lock = NSLock()
    /// As last read or written.
    private var versions: [String: String]
    /// Lines of the file that could not be read (a damaged file), with their numbers, for the log.
    private(set) var unreadable: [Int] = []

    init(dataDirectory: URL) {
        path = dataDirectory.appendingPathComponent(Self.fileName).path
        versions = [:]
        (versions, unreadable) = Self.read(path)
    }

    /// The version of plugin `id` last in service here, if any.
    func version(of id: String) -> String? {
        lock.withLock { versions[id] }
    }

    /// Records the versions now in service; writes the file only when one of them changed.
    func record(_ inService: [(id: String, version: String)]) {
        lock.withLock {
            guard inService.contains(where: { versions[$0.id] != $0.version }) else { return }
            var merged = Self.read(path).versions
            for (id, version) in inService { merged[id] = version }
            let text = "# rbs-host: the version of each plugin last in service on this data folder (a lower one is refused at start unless allowed: rbs-host plugin allow-downgrade ID)\n"
                + merged.keys.sorted().map { "\($0) \(merged[$0] ?? "")" }.joined(separator: "\n") + "\n"
            // Best effort: a data folder that cannot be written keeps the versions in memory for this host's reloads.
            try? TrustFile.write(text, to: path, mode: 0o600)
            versions = merged
        }
    }

    private static func read(_ path: String) -> (versions: [String: String], unreadable: [Int]) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return ([:], []) }
        var versions: [String: String] = [:]
        var unreadable: [Int] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: " ")
            guard fields.count == 2 else {
                unreadable.append(number + 1)
                continue
            }
            versions[String(fields[0])] = String(fields[1])
        }
        return (versions, unreadable)
    }
}
