import Foundation

/// A caller's request id (`run --request-id`, and the server's field): the same id from the same customer is
/// journaled and posted at most once. The pair is stored in the `requests` table (primary key: customer, request
/// id) in the same transaction as the journal entry it names, so the guarantee is the database's.
public struct LedgerRequest: Sendable, Hashable {
    /// Whose request it is (the command line uses ``local``).
    public let customer: String
    public let id: String

    /// The longest request id accepted, in bytes.
    public static let maximumLength = 200

    /// The customer of the command line and the REPL: the embedded core's one customer.
    public static let local = DemoBank.customer

    /// Refuses an id that is empty, longer than ``maximumLength`` bytes, or holds control characters.
    public init(customer: String = LedgerRequest.local, id: String) throws(LedgerError) {
        guard !id.isEmpty, id.utf8.count <= Self.maximumLength,
              !id.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .invalidRequestId(id)
        }
        self.customer = customer
        self.id = id
    }

    /// The request id `id` of whoever signs: a customer's (or user's) own, kept under their id — the same key through
    /// the API, `run --as` and the REPL —, or with no customer the host's signer's. `run --as carol --request-id r1`
    /// looked `r1` up among the host's signer's requests and answered carol with another party's payment.
    public init(signer: Customer?, id: String) throws(LedgerError) {
        try self.init(customer: signer.map { String($0.id) } ?? Self.local, id: id)
    }

    /// The journal sequence number recorded for this request, or `nil`.
    func sequence(in db: any SQLTransaction) throws -> Int64? {
        try db.value(Int64.self, Self.sequenceQuery, customer, id)
    }

    /// A request's recorded entry: a once-only id's lookup, almost always empty (``SpeculativeTransaction/presumedEmpty``).
    static let sequenceQuery = "SELECT journal_seq FROM requests WHERE customer = ? AND request_id = ?"

    /// Records that this request was answered by the journal entry `sequence` (inside the caller's transaction).
    func insert(documentId: String, sequence: Int64, in db: any SQLTransaction) throws {
        try db.execute("INSERT INTO requests (customer, request_id, document_id, journal_seq) VALUES (?, ?, ?, ?)",
                       customer, id, documentId, sequence)
    }
}
