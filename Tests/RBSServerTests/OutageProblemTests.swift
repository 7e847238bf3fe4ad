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

/// An internal error's cause is the operator's, not the client's (a database's address and user, a folder's path).
@Suite("serve: internal errors")
struct InternalProblemTests {
    @Test("a 500's detail goes to the server's log under a reference; the client gets the reference and how to retry, none of the cause")
    func internalDetailStaysInTheLog() throws {
        let cause = OnlineBank.storageProblem("the payment could not be signed", LedgerError.database(
            path: "postgres://rbs@10.0.0.7:5432/bank", detail: "canceling statement due to lock timeout\nsecond line"))
        #expect(cause.status == 500)
        let (client, log) = cause.forClient(reference: "00112233aabbccdd")
        #expect(client.status == 500 && client.type == "urn:rbs-host:problem:internal" && client.title == cause.title)
        #expect(client.reference == "00112233aabbccdd")
        #expect(client.detail == "the server's log names the cause under reference 00112233aabbccdd; a payment sent again with the same requestId is answered with its first outcome if it was made")
        let line = try #require(log)
        #expect(line.hasPrefix("rbs-host serve: internal error 00112233aabbccdd: the payment could not be signed: "))
        #expect(line.contains("10.0.0.7:5432") && line.contains("lock timeout") && !line.contains("\n"), "\(line)")
        // What the client is sent, as JSON: no trace of the cause.
        let sent = String(decoding: try Routes.encoder.encode(client), as: UTF8.self)
        for secret in ["10.0.0.7", "postgres", "bank", "lock timeout"] { #expect(!sent.contains(secret), "\(sent)") }
        // Two errors, two references.
        #expect(Problem.newReference() != Problem.newReference())
        #expect(Problem.newReference().count == 16)
        // A problem the client can act on goes as it is, and nothing is logged.
        let refused = Problem("insufficient-funds", "Not enough money", status: 422, detail: "the balance is 10.00 RUB")
        let (same, none) = refused.forClient()
        #expect(same == refused && none == nil)
    }
}

@Suite("serve: too many attempts")
struct TooManyAttemptsTests {
    /// A Russian page said the lock after five wrong codes in English between Russian wrong-code messages.
    @Test("a refusal after too many failures is said in the person's language, with the seconds to wait")
    func inBothLanguages() {
        let russian = Problem.tooManyAttempts(276, what: .codes, language: .ru)
        #expect(russian.status == 429 && russian.type == "urn:rbs-host:problem:rate-limited")
        #expect(russian.detail == "слишком много неудачных попыток подписи этого клиента или с этого адреса; попробуйте снова через 276 с")
        #expect(Problem.tooManyAttempts(276, what: .codes).detail
                == "too many failed signing attempts from this customer or address; try again in 276 s")
        #expect(Problem.tooManyAttempts(30, what: .logins).detail == "too many failed logins from this customer or address; try again in 30 s")
    }
}
