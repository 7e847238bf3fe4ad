import Foundation

/// Says once per host process that plugin workers could not be confined by the kernel (no Landlock): a clear
/// warning, not one per worker.
enum WorkerConfinementNotice {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var said = false

    static func once(_ warning: String, locator: ServiceLocator) {
        let first = lock.withLock {
            defer { said = true }
            return !said
        }
        guard first else { return }
        locator.optional((any HostLog).self)?.write(level: .warning, source: "rbs-host", message: warning)
    }
}
