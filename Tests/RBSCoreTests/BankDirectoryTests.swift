import CRBSPlugin
import Foundation
import RBSMoney
import Testing
@testable import RBSCore

@Suite("Bank directory (ED807)")
struct BankDirectoryTests {
    static let sample = Fixtures.root.appendingPathComponent("Tests/Fixtures/ed807/ED807-sample.xml")
    static let malformed = Fixtures.root.appendingPathComponent("Tests/Fixtures/ed807/ED807-malformed.xml")

    private func directory(_ url: URL) throws -> BankDirectory {
        try BankDirectory(ed807: try Data(contentsOf: url), file: url.lastPathComponent, source: "test")
    }

    private func error(_ text: String) -> DirectoryError? {
        do {
            _ = try BankDirectory(ed807: Data(text.utf8), file: "x.xml", source: "test")
            return nil
        } catch {
            return error
        }
    }

    @Test("an ED807 file as published (windows-1251) is read: date, banks, treasury offices, closed entries")
    func readsTheSample() throws {
        let directory = try directory(Self.sample)
        #expect(directory.date == "2026-09-01")
        #expect(directory.count == 5)
        #expect(directory.closedCount == 1)
        let sber = try #require(directory.bank(bic: "044525225"))
        #expect(sber.name == "ПАО Сбербанк")
        #expect(sber.city == "Москва")
        #expect(sber.correspondentAccount == "30101810400000000225")
        let treasury = try #require(directory.bank(bic: "004525988"))
        #expect(treasury.name == "ГУ Банка России по ЦФО//УФК по г. Москве")
        #expect(treasury.correspondentAccount == "40102810545370000003")
        #expect(directory.bank(bic: "044525000")?.correspondentAccount == "")
        // A closed BIC is not a usable bank, and the directory says when it closed.
        #expect(directory.bank(bic: "044599999") == nil)
        guard case .closed(let closed, let date) = directory.status(bic: "044599999") else {
            Issue.record("044599999 is not closed"); return
        }
        #expect(date == "2024-05-13")
        #expect(closed.name == "ООО «Закрытый банк» (test entry)")
        #expect(directory.status(bic: "000000000") == .unknown)
    }

    /// Found by FuzzED807: a document declared UTF-7 (this one, the sample fixture with its declaration and bytes
    /// changed by the fuzzer) made libxml2 read through a NULL pointer in `xmlParseChunk`, killing the host at
    /// `directory import`. Only UTF-8 (and windows-1251, converted first) reaches the XML parser now.
    @Test("a document in an encoding other than UTF-8 or windows-1251 is refused before the XML parser sees it")
    func foreignEncodingsRefused() throws {
        let crash = try Data(contentsOf: Fixtures.root.appendingPathComponent("Tests/Fixtures/ed807/ED807-utf7-crash.xml"))
        #expect(throws: DirectoryError.malformed(file: "ED807-utf7-crash.xml", line: 1,
                                                 reason: "it declares encoding \"UTF-7\"; an ED807 file is windows-1251 (as the Bank of Russia publishes it) or UTF-8")) {
            _ = try BankDirectory(ed807: crash, file: "ED807-utf7-crash.xml", source: "test")
        }
        // The second input FuzzED807 found: a declaration that ends badly (`@>`) is read up to its encoding all the same.
        #expect(error("<?xml version=\"1.0\" encoding=\"UTF-7\"@>\n<ED807 EDDate=\"2026-09-01\"/>")
                    == .malformed(file: "x.xml", line: 1, reason: "it declares encoding \"UTF-7\"; an ED807 file is windows-1251 (as the Bank of Russia publishes it) or UTF-8"))
        // The third: FoundationXML crashes (strlen of NULL) on a processing instruction without data.
        #expect(error("<?xml version=\"1.0\"?>\n<ED807 EDDate=\"2026-09-01\">\n<?xibm5347p1001998.?></ED807>")
                    == .malformed(file: "x.xml", line: 3, reason: "it holds a processing instruction (<?…?>) after the XML declaration; ED807 has none"))
        #expect(error("<?xibm5347p1001998.?>\n<ED807 EDDate=\"2026-09-01\"/>")
                    == .malformed(file: "x.xml", line: 1, reason: "it holds a processing instruction (<?…?>) after the XML declaration; ED807 has none"))
        #expect(error("<?xml version='1.0' encoding='ISO-2022-JP'?>\n<ED807 EDDate=\"2026-09-01\"/>")
                    == .malformed(file: "x.xml", line: 1, reason: "it declares encoding \"ISO-2022-JP\"; an ED807 file is windows-1251 (as the Bank of Russia publishes it) or UTF-8"))
        // UTF-16 without a byte order mark ("<\0"), and bytes that are not UTF-8, with their line.
        #expect(error(String(decoding: Array("<ED807/>".utf16).flatMap { [UInt8($0), 0] }, as: UTF8.self))
                    == .malformed(file: "x.xml", line: 1, reason: "it holds a NUL byte (XML has no U+0000; UTF-16 is not an ED807 encoding)"))
        #expect(throws: DirectoryError.malformed(file: "x.xml", line: 2, reason: "it is not UTF-8 (a windows-1251 file says so in its XML declaration)")) {
            _ = try BankDirectory(ed807: Data("<ED807 EDDate=\"2026-09-01\">\n<a b=\"".utf8) + Data([0xCF, 0xE0]) + Data("\"/></ED807>".utf8),
                                  file: "x.xml", source: "test")
        }
        // What the reader does read is unchanged: the published windows-1251 file and the bundled UTF-8 extract.
        #expect(try directory(Self.sample).bank(bic: "044525225") != nil)
    }

    @Test("a bad entry stops the import with its file, line and element")
    func malformedEntry() {
        #expect(throws: DirectoryError.invalidEntry(file: "ED807-malformed.xml", line: 9, element: "Accounts",
                                                    reason: "Account \"3010181020000000059\" is not 20 digits")) {
            try directory(Self.malformed)
        }
        #expect(error("""
        <ED807 EDDate="2026-09-01">
          <BICDirectoryEntry BIC="04452522"><ParticipantInfo NameP="x"/></BICDirectoryEntry>
        </ED807>
        """) == .invalidEntry(file: "x.xml", line: 2, element: "BICDirectoryEntry", reason: "BIC \"04452522\" is not 9 digits"))
        #expect(error("""
        <ED807 EDDate="2026-09-01">
          <BICDirectoryEntry BIC="044525225"><ParticipantInfo Nnp="Москва"/></BICDirectoryEntry>
        </ED807>
        """) == .invalidEntry(file: "x.xml", line: 2, element: "ParticipantInfo", reason: "NameP (the participant's name) is missing"))
        #expect(error("<ED807>\n</ED807>") == .invalidEntry(file: "x.xml", line: 1, element: "ED807", reason: "EDDate (the directory's date) is missing"))
        #expect(error("<ED806 EDDate=\"2026-09-01\"/>") == .notED807(file: "x.xml", root: "ED806"))
        // Digits of another script are not a date (Character.isNumber takes them).
        #expect(error("<ED807 EDDate=\"٢٠٢٦-٠٩-٠١\"></ED807>") == .invalidEntry(file: "x.xml", line: 1, element: "ED807", reason: "EDDate \"٢٠٢٦-٠٩-٠١\" is not a date YYYY-MM-DD"))
        #expect(error("<ED807 EDDate=\"2026-09-01\"></ED807>") == .empty(file: "x.xml"))
        guard case .malformed(let file, let line, _) = error("<ED807 EDDate=\"2026-09-01\">\n<BICDirectoryEntry BIC=\"044525225\"><ParticipantInfo NameP=\"x\"/>\n</ED807>") else {
            Issue.record("not well-formed XML was accepted"); return
        }
        #expect(file == "x.xml")
        #expect(line == 3)
    }

    @Test("import keeps the file in the data folder (0600); a bad file leaves the previous directory in place")
    func importKeepsTheFile() throws {
        let data = Fixtures.temporaryDirectory("ed807-import")
        #expect(try BankDirectory.current(dataDirectory: data).source == "bundled")
        let imported = try BankDirectory.importED807(from: Self.sample, into: data)
        #expect(imported.date == "2026-09-01")
        let kept = BankDirectory.importedFile(in: data)
        let mode = try FileManager.default.attributesOfItem(atPath: kept.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try BankDirectory.current(dataDirectory: data).date == "2026-09-01")
        #expect(throws: DirectoryError.self) { try BankDirectory.importED807(from: Self.malformed, into: data) }
        #expect(try BankDirectory.current(dataDirectory: data).count == 5)
    }

    @Test("the bundled extract is real ED807: banks and treasury offices whose accounts pass the control key")
    func bundledExtract() {
        let directory = BankDirectory.bundled()
        #expect(directory.source == "bundled")
        #expect(directory.count >= 25)
        #expect(directory.bank(bic: "044525593")?.name == "АО «Альфа-Банк»")
        #expect(directory.bank(bic: "004525988")?.correspondentAccount == "40102810545370000003")
        for bank in directory.all where !bank.correspondentAccount.isEmpty {
            #expect(AccountKey.isValid(account: bank.correspondentAccount, bic: bank.bic), "\(bank.bic)")
        }
    }

    @Test("plugins cannot look up a closed BIC; the host says when it closed")
    func closedBicIsRefusedToPlugins() throws {
        let log = RecordingLog()
        let directory = try directory(Self.sample)
        let runtime = Runtime(paths: HostPaths(plugins: "/nonexistent", data: Fixtures.temporaryDirectory("d")),
                              log: log, directory: directory)
        let table = try #require(runtime.locator.table(id: RBS_SERVICE_DIRECTORY)?
            .assumingMemoryBound(to: rbs_directory_service_t.self))
        var bank = rbs_bank_t()
        #expect(table.pointee.lookup(table.pointee.context, "004525988", &bank))
        #expect(String(cString: bank.corr_account) == "40102810545370000003")
        #expect(!table.pointee.lookup(table.pointee.context, "044599999", &bank))
        #expect(log.messages.contains("BIC 044599999 was closed on 2024-05-13 (bank directory of 2026-09-01); payments to it are refused"))
    }
}

/// A log that keeps what it was told.
final class RecordingLog: HostLog, @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [String] = []
    var messages: [String] { lock.withLock { kept } }
    func write(level: LogLevel, source: String, message: String) { lock.withLock { kept.append(message) } }
}
