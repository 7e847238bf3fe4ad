import Foundation
import RBSCore
import RBSLedger

/// Shutting down (signings in progress finish first) and telling open clients that plugins were reloaded.
extension OnlineBank {
    /// Tells every open client the server is going, waits (up to `timeout` seconds) for signings in progress to
    /// finish, then closes every run's plugin instance on its lane.
    package func shutdown(timeout: TimeInterval = 30) async {
        events.shutdown(message: "the server is shutting down; open runs end — sign again after it is back")
        let deadline = Date().addingTimeInterval(timeout)
        while signingLock.withLock({ signingsInFlight }) > 0, Date() < deadline {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        for run in runs.all {
            runs.remove(run.id)
            try? await onLane(run) { () throws(Problem) in
                run.session?.close()
                run.session = nil
            }
        }
    }

    /// Tells every open client that plugins were reloaded (open runs finish on the version they started with).
    package func announce(_ reports: [ReloadReport]) {
        for report in reports {
            var data = ["change": report.change.rawValue, "message": report.description]
            if let plugin = report.pluginID { data["plugin"] = plugin }
            if let old = report.oldVersion { data["oldVersion"] = old }
            if let new = report.newVersion { data["newVersion"] = new }
            events.broadcast(ServerEvent(name: "reload", data: data))
        }
    }
}
