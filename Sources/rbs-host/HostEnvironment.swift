import Foundation
import RBSCore
import RBSLedger

/// Every environment variable rbs-host honours, read once when the process starts into one value: the commands, the
/// options and the output read this, never the environment itself, so what a setting does is found here. (What a
/// child process is given — a worker, a scan — is the environment passed on as it is, in RBSCore.)
struct HostEnvironment: Sendable {
    /// `RBS_PLUGINS` and `RBS_HOME`, as ``HostPaths/resolve(plugins:data:database:environment:)`` reads them.
    var paths: [String: String]
    /// `RBS_DATABASE`, as ``LedgerLocation/resolve(flag:environment:)`` reads it.
    var database: [String: String]
    /// `RBS_DEV=1`: development mode.
    var development: Bool
    /// `RBS_ISOLATION` (checked where it is used, with its own message).
    var isolation: String?
    /// `RBS_WORKER_TIMEOUT`, seconds.
    var workerTimeout: Double?
    /// `RBS_WORKER_LIMIT_AS` (MiB), `RBS_WORKER_LIMIT_CPU` (seconds), `RBS_WORKER_LIMIT_FILES` and
    /// `RBS_WORKER_LIMIT_PROCESSES`, as written (checked where they are used, with their own messages).
    var workerLimits: [String: String]
    /// `RBS_CLOCK` (Unix seconds; honoured by debug builds only).
    var clock: Double?
    /// `RBS_PAUSE_AFTER_COMMIT_MS` (debug builds: the tests' kill window after a commit).
    var pauseAfterCommitMilliseconds: UInt32?
    /// `RBS_SDK`: where `plugin new` finds the SDK.
    var sdk: String?
    /// `NO_COLOR` set: no colour, whatever the terminal.
    var noColour: Bool
    /// `USER`: the default name of an enrolment and of a publisher key.
    var user: String?
    /// `LC_ALL`, `LC_MESSAGES`, `LANG`: the language of messages when `--lang` is not given.
    var locale: [String: String]
    /// `RBS_RELEASE_SYNC`: seconds between a REPL's or `serve`'s syncs with the staged rollouts (default 2).
    var releaseSync: Double?

    init(_ environment: [String: String]) {
        func text(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        paths = environment.filter { ["RBS_PLUGINS", "RBS_HOME"].contains($0.key) }
        database = environment.filter { $0.key == LedgerLocation.environmentVariable }
        development = environment["RBS_DEV"] == "1"
        isolation = text("RBS_ISOLATION")
        workerTimeout = text("RBS_WORKER_TIMEOUT").flatMap(Double.init)
        workerLimits = environment.filter { $0.key.hasPrefix("RBS_WORKER_LIMIT_") }
        clock = text("RBS_CLOCK").flatMap(Double.init)
        pauseAfterCommitMilliseconds = text("RBS_PAUSE_AFTER_COMMIT_MS").flatMap(UInt32.init)
        sdk = text("RBS_SDK")
        noColour = environment["NO_COLOR"] != nil
        user = text("USER")
        locale = environment.filter { ["LC_ALL", "LC_MESSAGES", "LANG"].contains($0.key) }
        releaseSync = text("RBS_RELEASE_SYNC").flatMap(Double.init).flatMap { $0 > 0 && $0 <= 3600 ? $0 : nil }
    }

    /// The process's environment, read once.
    static let current = HostEnvironment(ProcessInfo.processInfo.environment)
}
