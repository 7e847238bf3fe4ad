import Foundation
import Hummingbird
import RBSLedger
@testable import RBSServer
import Testing

/// `serve` when its data folder changes under it (issue 28, item 8): the ledger stops, every payment after that is
/// answered 503 `ledger-stopped` saying what happened (never `200 posted`), and `/health` says unavailable.
@Suite("serve: the data folder changes while serving")
struct LedgerStopServerTests {
    enum Change: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case deleted, replaced, folderOpened, ledgerOpened
        var testDescription: String { rawValue }

        func apply(to data: URL) throws {
            switch self {
            case .deleted:
                try FileManager.default.removeItem(at: data)
            case .replaced:
                try FileManager.default.removeItem(at: data)
                try FileManager.default.createDirectory(at: data, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            case .folderOpened:
                guard chmod(data.path, 0o777) == 0 else { throw TestFailure("chmod 777 \(data.path) failed") }
            case .ledgerOpened:
                let ledger = data.appendingPathComponent("rbs.sqlite").path
                guard chmod(ledger, 0o666) == 0 else { throw TestFailure("chmod 666 \(ledger) failed") }
            }
        }

        /// The sentence the 503 and `/health` must carry.
        /// How the stop's message begins: what changed (an exposure, then its fix, in one sentence).
        func what(_ data: URL) -> String {
            switch self {
            case .deleted: "the data folder \(data.path) was deleted or moved away"
            case .replaced: "the data folder \(data.path) was replaced by another folder"
            case .folderOpened: "while rbs-host was running, \(data.path) has mode 777 (other users can change it); it must be 700"
            case .ledgerOpened: "while rbs-host was running, \(data.appendingPathComponent("rbs.sqlite").path) has mode 666 (other users can change it); it must be 600"
            }
        }
    }

    @Test("a payment reviewed before the change is answered 503 ledger-stopped naming it; the next one too; nothing is journaled; /health answers 503 unavailable",
          arguments: Change.allCases)
    func stopsSigning(change: Change) async throws {
        let bank = try TestBank()
        try await bank.test { api in
            let health = try await api.call(.get, "/health")
            #expect(health.status == 200)
            #expect(health.object["status"] as? String == "ok")
            #expect((health.object["ledger"] as? [String: Any])?["status"] as? String == "ok")
            #expect((health.object["database"] as? [String: Any])?["status"] as? String == "ok")

            let token = try await api.login(bank.alice)
            let run = try #require(try await api.open("pay.pp.quick", token)["id"] as? String)
            try await api.fill(run, try bank.quickPayment(from: bank.alice), token)
            #expect(try await api.call(.post, "/api/v1/runs/\(run)/submit", token: token).status == 200)

            try change.apply(to: bank.data)

            let signed = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice)])
            #expect(signed.status == 503, "\(signed.text)")
            #expect(signed.contentType == "application/problem+json")
            #expect(signed.object["type"] as? String == "urn:rbs-host:problem:ledger-stopped")
            let detail = try #require(signed.object["detail"] as? String)
            #expect(detail.hasPrefix("the ledger stopped: \(change.what(bank.data))"), "\(detail)")

            // Trying again is refused the same way, and so is everything else that reads the ledger.
            let again = try await api.call(.post, "/api/v1/runs/\(run)/sign", token: token, json: ["code": bank.code(bank.alice, steps: 1)])
            #expect(again.status == 503 && again.object["type"] as? String == "urn:rbs-host:problem:ledger-stopped", "\(again.text)")
            let accounts = try await api.call(.get, "/api/v1/accounts", token: token)
            #expect(accounts.status == 503 && accounts.object["type"] as? String == "urn:rbs-host:problem:ledger-stopped", "\(accounts.text)")

            let down = try await api.call(.get, "/health")
            #expect(down.status == 503)
            #expect(down.object["status"] as? String == "unavailable")
            let ledger = try #require(down.object["ledger"] as? [String: Any])
            #expect(ledger["status"] as? String == "unavailable")
            #expect((ledger["detail"] as? String)?.hasPrefix("the ledger stopped: \(change.what(bank.data))") == true)
        }
        // The open ledger stays stopped, even for a read.
        #expect(throws: LedgerError.self) { try bank.ledger.journal.entries() }
        // Where the files are still there, the next start (permissions put back) finds nothing was posted.
        if change == .folderOpened || change == .ledgerOpened {
            chmod(bank.data.path, 0o700)
            chmod(bank.data.appendingPathComponent("rbs.sqlite").path, 0o600)
            let reopened = try Ledger(dataDirectory: bank.data)
            #expect(try reopened.journal.entries().isEmpty)
            try reopened.close()
        }
    }
}
