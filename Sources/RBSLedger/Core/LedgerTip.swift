import Foundation

/// What the data folder remembers of its ledger outside the database, in `DATA/ledger-tip` (mode 0600):
///
/// ```
/// rbs-ledger-tip 1
/// ledger <32 hex: the ledger's id, also stored inside the database>
/// entry <last journal sequence number> <its hash, 64 hex>
/// code-step <the last accepted one-time code's time step, or ->
/// code-failures <wrong codes in a row>
/// locked-until-ms <end of the signing lock, Unix milliseconds, or ->
/// ```
///
/// It is rewritten (a temporary file renamed over it) after every committed write, so it never runs ahead of the
/// database: it may lag behind it (a process killed between the commit and the rename), which is accepted. The
/// rewrite runs in the background, beside the next transactions, so the lag may be the commits of the last few
/// milliseconds (``TipRecorder``). A
/// database is recognised as this folder's ledger when it carries the same ledger id and its journal holds the
/// recorded entry with the recorded hash. A wiped, emptied or replaced database does not (a new one has a new
/// id); a restored backup of the whole folder does (its record came with it). The code state is kept here too,
/// so a database put back from an older backup, or started again with `init --force`, cannot forget a used code
/// or a lock-out.
struct LedgerTip: Sendable, Equatable {
    var ledgerId: String
    var sequence: Int64
    var hash: Data
    var codeStep: Int64?
    var codeFailures: Int
    var lockedUntil: Int64?

    static let fileName = "ledger-tip"
    private static let header = "rbs-ledger-tip 1"

    /// The record in `directory`, or `nil` when there is none (after this process's record in flight is written).
    static func read(in directory: URL) throws(LedgerError) -> LedgerTip? {
        TipRecorder.for(directory).settle()
        let url = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        if let exposure = SecureFile.exposure(of: url.path) { throw .notPrivate(exposure) }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .tipDamaged(path: url.path, detail: "it cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .tipDamaged(path: url.path, detail: "not UTF-8 text") }
        do {
            return try parse(text)
        } catch {
            throw .tipDamaged(path: url.path, detail: error.detail)
        }
    }

    private struct Malformed: Error { let detail: String }

    private static func parse(_ text: String) throws(Malformed) -> LedgerTip {
        let lines = text.split(separator: "\n").map(String.init)
        guard lines.first == header else { throw Malformed(detail: "the first line is not \"\(header)\"") }
        var fields: [String: [String]] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ").map(String.init)
            if let key = parts.first { fields[key] = Array(parts.dropFirst()) }
        }
        func field(_ key: String, count: Int = 1) throws(Malformed) -> [String] {
            guard let values = fields[key], values.count == count else { throw Malformed(detail: "no valid \"\(key)\" line") }
            return values
        }
        func optionalNumber(_ key: String) throws(Malformed) -> Int64? {
            let value = try field(key)[0]
            if value == "-" { return nil }
            guard let number = Int64(value) else { throw Malformed(detail: "\"\(key)\" is not a number") }
            return number
        }
        let ledgerId = try field("ledger")[0]
        let entry = try field("entry", count: 2)
        guard let sequence = Int64(entry[0]), sequence >= 0, let hash = Hex.decode(entry[1]), hash.count == 32,
              ledgerId.count == 32, Hex.decode(ledgerId) != nil else {
            throw Malformed(detail: "the ledger id or the entry line is not valid")
        }
        guard let failures = Int(try field("code-failures")[0]), failures >= 0 else {
            throw Malformed(detail: "\"code-failures\" is not a number")
        }
        return LedgerTip(ledgerId: ledgerId, sequence: sequence, hash: hash, codeStep: try optionalNumber("code-step"),
                         codeFailures: failures, lockedUntil: try optionalNumber("locked-until-ms"))
    }

    var text: String {
        """
        \(Self.header)
        ledger \(ledgerId)
        entry \(sequence) \(Hex.encode(hash))
        code-step \(codeStep.map(String.init) ?? "-")
        code-failures \(codeFailures)
        locked-until-ms \(lockedUntil.map(String.init) ?? "-")

        """
    }

    /// Replaces the record in `directory` (0600, written whole and renamed into place).
    func write(in directory: URL) throws(LedgerError) {
        do {
            try SecureFile.write(Data(text.utf8), to: directory.appendingPathComponent(Self.fileName))
        } catch {
            switch error { case .system(let detail): throw .dataDirectory(path: directory.path, detail: detail) }
        }
    }

    /// The database's state as a record: its ledger id, the journal's last entry and the code state.
    static func current(_ db: any SQLTransaction) throws -> LedgerTip {
        let ledgerId = try db.value(String.self, "SELECT ledger_id FROM ledger_identity WHERE id = 1") ?? ""
        let tip = try Journal.chainTip(db)
        let code = try db.row("SELECT last_step, failures, locked_until_ms FROM code_state WHERE id = 1")
        return LedgerTip(
            ledgerId: ledgerId, sequence: tip.sequence, hash: tip.hash,
            codeStep: try code?.decode(Int64?.self, forColumn: "last_step"),
            codeFailures: try code?.decode(Int.self, forColumn: "failures") ?? 0,
            lockedUntil: try code?.decode(Int64?.self, forColumn: "locked_until_ms"))
    }

    /// A short reference to the recorded entry: "entry 9 (hash 3fa1c2d4…)".
    var entryText: String { end.description }

    /// The journal's end this tip names, as ``Ledger/Creation/Note`` reports it.
    var end: Ledger.Creation.Note.End { Ledger.Creation.Note.End(sequence: sequence, hash: Hex.encode(hash)) }
}
