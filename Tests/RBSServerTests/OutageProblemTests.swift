import Foundation
import RBSLedger
@testable import RBSServer
import Testing

/// How the server says that the shared database cannot be reached (issue 17: hosts report an outage clearly).
@Suite("serve: database outage answers")
struct OutageProblemTests {
    static let lost = PostgresFailure.connectionLost(server: "127.0.0.1:5433", detail: "the server closed the connection")

    @Test("a login, the accounts, a review or a passkey that fails because PostgreSQL is gone is 503 database-unavailable naming the server, however the failure is wrapped; other failures stay 500")
    func outageIs503() {
        for error: any Error in [Self.lost, LedgerError.server(Self.lost), CustomerError.storage(.server(Self.lost))] {
            let problem = OnlineBank.storageProblem("the customers could not be read", error)
            #expect(problem.status == 503, "\(error)")
            #expect(problem.type.hasSuffix(":database-unavailable"), "\(problem.type)")
            #expect(problem.detail.contains("PostgreSQL at 127.0.0.1:5433"), "\(problem.detail)")
        }
        let other = OnlineBank.storageProblem("the customers could not be read", CustomerError.unknown("alice"))
        #expect(other.status == 500)
        #expect(other.detail.hasPrefix("the customers could not be read: "))
    }
}
