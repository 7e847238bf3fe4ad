import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RBSLedger

/// A bank (or a treasury office) in the directory.
public struct Bank: Codable, Hashable, Sendable {
    public var bic: String
    public var name: String
    /// The correspondent account (a bank's `30101…`) or single treasury account (a treasury office's `40102…`),
    /// 20 digits; "" for a participant without one (a Bank of Russia division).
    public var correspondentAccount: String
    public var city: String
    /// The date (YYYY-MM-DD) the directory excluded the participant, or nil while it is active.
    public var closedOn: String?

    public init(bic: String, name: String, correspondentAccount: String, city: String, closedOn: String? = nil) {
        self.bic = bic
        self.name = name
        self.correspondentAccount = correspondentAccount
        self.city = city
        self.closedOn = closedOn
    }
}

/// The Bank of Russia's BIC directory, read from its published electronic form ED807 (XML, UFEBS format):
/// `<ED807 EDDate=…>` holding `<BICDirectoryEntry BIC=…>` elements, each with `<ParticipantInfo NameP=… Nnp=…
/// [DateOut=…] ParticipantStatus=…>` and `<Accounts Account=… RegulationAccountType=… AccountStatus=…>`.
///
/// The host uses the directory imported into the data folder (`rbs-host directory import FILE`, kept as
/// `DATA/bank-directory.xml`, mode 0600), or else the small real extract shipped with rbs-host. A BIC the
/// directory marks as closed (a `DateOut`, or status PSDL) is not offered to plugins; ``status(bic:)`` says when
/// it closed.
public final class BankDirectory: Sendable {
    /// Where the directory came from: "bundled" or the imported file's path.
    public let source: String
    /// The directory's date (ED807's `EDDate`), YYYY-MM-DD.
    public let date: String
    private let entries: [String: Bank]

    /// The file in the data folder that holds the imported directory.
    public static func importedFile(in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("bank-directory.xml")
    }

    public init(banks: [Bank], date: String, source: String) {
        self.entries = Dictionary(banks.map { ($0.bic, $0) }, uniquingKeysWith: { first, _ in first })
        self.date = date
        self.source = source
    }

    /// Parses an ED807 document; `file` names it in messages.
    public convenience init(ed807 data: Data, file: String, source: String) throws(DirectoryError) {
        let reader = ED807Reader(file: file)
        try reader.read(data)
        self.init(banks: reader.banks, date: reader.date ?? "", source: source)
    }

    /// The directory shipped with rbs-host: a small real extract of ED807 (`Resources/ED807-extract.xml`).
    public static func bundled() -> BankDirectory {
        guard let url = Bundle.module.url(forResource: "ED807-extract", withExtension: "xml"),
              let data = try? Data(contentsOf: url),
              let directory = try? BankDirectory(ed807: data, file: "ED807-extract.xml", source: "bundled") else {
            return BankDirectory(banks: [], date: "", source: "bundled (unreadable)")
        }
        return directory
    }

    /// The directory imported into `dataDirectory`, or the bundled one when none was imported.
    /// - Throws: when an imported file exists but cannot be read (it is never silently replaced by the extract).
    public static func current(dataDirectory: URL) throws(DirectoryError) -> BankDirectory {
        let url = importedFile(in: dataDirectory)
        guard FileManager.default.fileExists(atPath: url.path) else { return bundled() }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .unreadable(path: url.path, reason: error.localizedDescription)
        }
        return try BankDirectory(ed807: data, file: url.path, source: url.path)
    }

    /// Checks the ED807 file at `file` and keeps a copy in `dataDirectory` (mode 0600), replacing the previous one.
    @discardableResult
    public static func importED807(from file: URL, into dataDirectory: URL) throws(DirectoryError) -> BankDirectory {
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw .unreadable(path: file.path, reason: error.localizedDescription)
        }
        let target = importedFile(in: dataDirectory)
        let checked = try BankDirectory(ed807: data, file: file.path, source: target.path)
        guard checked.count > 0 else { throw .empty(file: file.path) }
        do {
            try SecureFile.ensureDirectory(dataDirectory)
            try SecureFile.write(data, to: target)
        } catch {
            if case .system(let reason) = error { throw .storage(reason) }
        }
        return checked
    }

    /// The active bank with `bic`; nil for an unknown or closed BIC.
    public func bank(bic: String) -> Bank? {
        guard let bank = entries[bic], bank.closedOn == nil else { return nil }
        return bank
    }

    /// What the directory says about `bic`.
    public func status(bic: String) -> Status {
        guard let bank = entries[bic] else { return .unknown }
        if let closed = bank.closedOn { return .closed(bank, on: closed) }
        return .active(bank)
    }

    /// A BIC's standing in the directory.
    public enum Status: Sendable, Equatable {
        case active(Bank)
        case closed(Bank, on: String)
        case unknown
    }

    /// Every entry, active and closed.
    public var count: Int { entries.count }
    public var closedCount: Int { entries.values.filter { $0.closedOn != nil }.count }
    public var all: [Bank] { entries.values.sorted { $0.bic < $1.bic } }
}
