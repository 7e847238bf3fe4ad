import Foundation
@testable import RBSCore
import Testing

/// Why a plugin is not in service, in Russian: every refusal a load, a scan or the trust policy can give is written
/// from its facts, not left in English (issue #28 item 7).
@Suite("Plugin problems in the person's language")
struct PluginProblemTextsTests {
    static let key = String(repeating: "ab", count: 32)
    static let abi = ABIVersion(major: 1, minor: 4, patch: 0)
    static let old = ABIVersion(major: 0, minor: 9, patch: 0)

    /// One of every kind of problem (the `switch` in `HostMessage.describe` is exhaustive, so a new kind cannot be
    /// left without a Russian text; this list checks the texts read as Russian).
    static let problems: [PluginProblem] = [
        .unreadable("Permission denied"), .unreadableFolder("No such file or directory"),
        .notAFile(.directory), .notAFile(.danglingLink(target: "/opt/x.so")), .notAFile(.linkLoop), .notAFile(.special),
        .image(.empty), .image(.notELF), .image(.notSharedObject(type: 2)), .image(.wrongClass),
        .image(.wrongMachine(found: 183, expected: 62)), .image(.truncated(what: "header", needs: 64, size: 10)),
        .image(.truncated(what: "segment 2", needs: 9000, size: 4096)),
        .dlopen("libfoo.so.1: cannot open shared object file"), .noEntry, .entryReturnedNull,
        .abiMajor(plugin: old, host: abi), .missingFeature(feature: "rbs.state/1", plugin: abi, host: old),
        .descriptor(location: "operation 'pay.x' atom 'amount'", issue: "caption is NULL"),
        .missingSymbol(location: "operation 'pay.x' function 'check'", symbol: "rbs_check"),
        .expression(location: "operation 'pay.x' atom 'amount' show_if", issue: "unknown atom 'sum'"),
        .duplicatePlugin(id: "ru.x.y", otherPath: "Plugins/a.so"), .duplicateOperation(id: "pay.x", otherPath: "Plugins/a.so"),
        .initFailed, .workerFailed("exited with status 1"), .quarantined("quarantined: its worker failed 3 times within 60 s"),
        .scanFailed(.crashed(signal: 11)), .scanFailed(.hung(timeout: .seconds(5))), .scanFailed(.exited(status: 3)),
        .scanFailed(.couldNotStart(reason: "fork failed")), .scanFailed(.stoppedBefore), .scanFailed(.noAnswer),
        .untrusted(.notSigned(path: "Plugins/a.so")), .untrusted(.unusableSignature(.malformedSignature(path: "a.so.sig", reason: "not hex"))),
        .untrusted(.unusableSignature(.io(path: "a.so.sig", reason: "Permission denied"))),
        .untrusted(.badSignature(path: "Plugins/a.so", signaturePath: "Plugins/a.so.sig")),
        .untrusted(.untrustedKey(publicKey: key)), .untrustedSharedKey,
        .untrusted(.changedAfterSigning(path: "Plugins/a.so", fileSHA256: key, signedSHA256: key)),
        .untrusted(.notVerifiedBeforeOpening),
        .untrusted(.signedForAnother(path: "Plugins/a.so", signedID: "ru.x.y", signedVersion: "1.0.0", id: "ru.x.z", version: "1.0.0")),
        .untrusted(.writableByOthers(.pluginFile, path: "Plugins/a.so", mode: 0o666)),
        .untrusted(.writableByOthers(.pluginFolder("Plugins"), path: "Plugins", mode: 0o777)),
        .untrusted(.ownedByAnother(.pluginFile, owner: 1001)), .untrusted(.ownedByAnother(.pluginFolder("Plugins"), owner: 1001)),
        .untrusted(.revokedKey(publicKey: key, on: "2026-11-01", reason: "leaked")),
        .untrusted(.expiredKey(publicKey: key, lastDay: "2026-10-31")),
        .untrusted(.outsideKeyScope(publicKey: key, pluginID: "ru.other.x", ids: ["ru.mybank.*"])),
        .downgrade(id: "ru.x.y", from: "1.1.0", to: "1.0.0"), .downgradeFromLastRun(id: "ru.x.y", from: "1.1.0", to: "1.0.0"),
    ]

    /// The Latin words a Russian sentence of the host may hold: names of things the reader types or looks up.
    static let allowedLatin: Set<String> = [
        "ABI", "ELF", "SHA", "dlopen", "init", "NULL", "uid", "root", "chown", "ldd", "REPL", "UTC", "RBS", "EXPORT",
        "cc", "shared", "dynamic", "library", "Swift", "cdecl", "little", "endian", "x", "dev", "plugins", "PLUGINS",
        "database", "rbs", "entry", "t",
    ]

    /// The Latin words of `text` outside code (`…`), quotes («…»), paths, options, ids and hex.
    static func strayLatin(_ text: String, facts: [String]) -> [String] {
        var rest = text
        for fact in facts { rest = rest.replacingOccurrences(of: fact, with: " ") }
        rest = rest.replacingOccurrences(of: "`[^`]*`", with: " ", options: .regularExpression)
        rest = rest.replacingOccurrences(of: "«[^»]*»", with: " ", options: .regularExpression)
        // A word with a dot, a slash, an underscore, a hyphen or a digit is a path, a file, an id, a symbol or an
        // option, written as the reader types it.
        return rest.split(whereSeparator: \.isWhitespace)
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",;:()—–…")) }
            .filter { word in
                word.unicodeScalars.contains { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
                    && !word.contains(where: { "./_-@'".contains($0) || $0.isNumber })
                    && !allowedLatin.contains(word)
            }
    }

    @Test("every plugin problem reads as Russian under --lang ru, keeping the facts (paths, keys, versions) as they are")
    func everyProblemInRussian() {
        for problem in Self.problems {
            let error = PluginLoadError(path: "Plugins/pay.so", problem: problem)
            let russian = HostMessage.describe(error, .ru)
            #expect(russian.hasPrefix("Plugins/pay.so: "), "\(russian)")
            #expect(HostMessage.describe(error, .en) == error.description)
            #expect(russian != error.description, "left in English: \(russian)")
            let facts = ["Permission denied", "No such file or directory", "libfoo.so.1: cannot open shared object file",
                         "operation 'pay.x' atom 'amount'", "operation 'pay.x' function 'check'", "caption is NULL", "show_if", "unknown atom 'sum'", "fork failed",
                         "exited with status 1", "quarantined: its worker failed 3 times within 60 s", "not hex", "leaked", "rbs.state/1", "SIGSEGV", "ru.mybank.*", Self.key, String(Self.key.prefix(16)), "Plugins"]
            #expect(Self.strayLatin(russian, facts: facts).isEmpty, "English words \(Self.strayLatin(russian, facts: facts)) in: \(russian)")
            for fact in ["Plugins/a.so", "ru.x.y", "1.1.0", Self.key, "2026-11-01", "leaked"] where error.description.contains(fact) {
                #expect(russian.contains(fact), "\(fact) lost in: \(russian)")
            }
        }
    }

    @Test("a run's plugin fault reads as Russian, the worker's own account quoted; a refused create() too")
    func faultInRussian() {
        let fault = PluginFault(plugin: "ru.x.y", operation: "pay.x", call: "value_changed(amount)", cause: "killed by SIGSEGV")
        let error = FormSessionError.pluginFault(fault)
        #expect(HostMessage.describe(error, caption: { _ in nil }, .ru)
                    == "плагин ru.x.y, операция pay.x: value_changed(amount) — сбой рабочего процесса плагина (killed by SIGSEGV); операция прервана, ничего не подписано и не проведено")
        #expect(HostMessage.describe(error, caption: { _ in nil }, .en) == fault.description)
        let refused = PluginFault(plugin: "ru.x.y", operation: "pay.x", call: "create()", cause: "returned NULL", endsModule: false)
        #expect(HostMessage.describe(refused, .ru) == "плагин ru.x.y, операция pay.x: create() не выполнена (returned NULL) — подробности в журнале")
    }

    @Test("a reload's report (added, reloaded, removed, refused) reads as Russian, the refusal from its facts")
    func reloadReportInRussian() {
        let refusal = PluginLoadError(path: "Plugins/pay.so", problem: .untrusted(.notSigned(path: "Plugins/pay.so")))
        var report = ReloadReport(change: .failed, path: "Plugins/pay.so", pluginID: "ru.x.y", oldVersion: "1.0.0",
                                  milliseconds: 0, error: refusal.description, problem: refusal)
        #expect(HostMessage.describe(report, .ru)
                    == "Plugins/pay.so: не подписан — подпишите его: `rbs-host plugin sign Plugins/pay.so --key КЛЮЧ`, и доверьте этот ключ: `rbs-host trust add`; или запустите с --dev — в работе остаётся версия 1.0.0")
        #expect(HostMessage.describe(report, .en) == report.description)
        report = ReloadReport(change: .updated, path: "Plugins/pay.so", pluginID: "ru.x.y", oldVersion: "1.0.0",
                              newVersion: "1.1.0", milliseconds: 2.5)
        #expect(HostMessage.describe(report, .ru) == "перезагружен ru.x.y 1.0.0 → 1.1.0 за 2.5 мс")
        report.change = .removed
        #expect(HostMessage.describe(report, .ru) == "удалён ru.x.y 1.0.0: его операции сняты")
    }
}

private extension PluginProblem {
    static let untrustedSharedKey = PluginProblem.untrusted(.untrustedSharedKey(publicKey: PluginProblemTextsTests.key))
}
