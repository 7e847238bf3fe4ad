import Foundation
import Testing

/// The embedded core's demo accounts (Sources/RBSLedger/Core/DemoBank.swift) and a payee outside the bank.
enum Demo {
    static let bic = "044525225"
    static let bankName = "ПАО Сбербанк"
    /// Текущий счёт, 150 000 RUB.
    static let current = "40817810438000000001"
    /// Накопительный счёт, 500 000 RUB.
    static let savings = "40817810738000000002"
    /// Старый счёт (blocked), 1 200 RUB.
    static let blocked = "40817810038000000003"
    /// Валютный счёт, 2 500 USD.
    static let usd = "40817840638000000004"
    /// An account at another customer of the same bank: not one of ours, with a valid control key for ``bic``.
    static let external = "40702810638000000123"

    static let seedBalances: [String: Decimal] = [
        current: 150_000, savings: 500_000, blocked: 1_200, usd: 2_500,
    ]

    /// A fixed start for RBS_CLOCK (2026-05-28T20:26:40Z).
    static let epoch = 1_780_000_000
}

/// One test's world: its own data directory, the repository's plugins, and a frozen host clock.
final class HostSandbox {
    let data: URL
    var plugins: URL = Repo.plugins
    /// RBS_CLOCK, Unix seconds.
    var clock: Int = Demo.epoch

    init() throws {
        try Repo.requireBuilt()
        data = FileManager.default.temporaryDirectory.appendingPathComponent("rbs-host-tests-\(UUID().uuidString)")
        // Private, as the host requires of its data folder; and with a ledger (the explicit first start).
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let created = try host(["init"])
        try #require(created.status == 0, "rbs-host init: \(created)")
    }

    deinit { try? FileManager.default.removeItem(at: data) }

    /// A clean environment: none of the caller's RBS_* settings; this sandbox's data, plugins and clock; development mode.
    func environment(_ extra: [String: String?] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RBS_") }
        environment["RBS_HOME"] = data.path
        environment["RBS_PLUGINS"] = plugins.path
        environment["RBS_CLOCK"] = String(clock)
        environment["NO_COLOR"] = "1"
        // English messages unless a test asks otherwise: the caller's locale must not change what is printed.
        environment["LC_ALL"] = nil
        environment["LC_MESSAGES"] = nil
        environment["LANG"] = "C.UTF-8"
        // Development mode: the example plugins are not signed (these tests are about forms and the ledger, not trust).
        environment["RBS_DEV"] = "1"
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// Runs `rbs-host arguments…` to completion.
    @discardableResult
    func host(_ arguments: [String], environment extra: [String: String?] = [:],
              sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
        try runProcess(Repo.binary, arguments, environment: environment(extra), sourceLocation: sourceLocation)
    }

    /// The REPL (with global `arguments` such as `--lang ru`) reading `script` from a pipe (no prompts: the answers only), to its end.
    func repl(_ script: String, arguments: [String] = [], environment extra: [String: String?] = [:]) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = Repo.binary
        process.arguments = arguments
        process.environment = environment(extra)
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, out, err)
    }

    /// Starts `rbs-host arguments…` without waiting.
    func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(Repo.binary, arguments, environment: environment())
    }

    // MARK: - Forms

    /// `describe OP --set … --json`, decoded; fails the test on a non-zero exit.
    func describe(_ operation: String, _ assignments: [String] = [], language: String? = nil,
                  sourceLocation: SourceLocation = #_sourceLocation) throws -> FormJSON {
        let result = try host(["describe", operation] + assignments.flatMap { ["--set", $0] } + ["--json"]
                                + (language.map { ["--lang", $0] } ?? []),
                              sourceLocation: sourceLocation)
        try #require(result.status == 0, "describe exited non-zero: \(result)", sourceLocation: sourceLocation)
        return try decode(FormJSON.self, result.stdout, sourceLocation: sourceLocation)
    }

    // MARK: - Keys and runs

    func initKeys(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try host(["keys", "init", "--name", "tester"], sourceLocation: sourceLocation)
        try #require(result.status == 0, "keys init: \(result)", sourceLocation: sourceLocation)
    }

    /// The one-time code at the current RBS_CLOCK (`keys code`).
    func code(ahead: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try host(["keys", "code", "--ahead", String(ahead)], sourceLocation: sourceLocation)
        try #require(result.status == 0, "keys code: \(result)", sourceLocation: sourceLocation)
        let code = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(code.count == 6 && code.allSatisfy(\.isASCII) && code.allSatisfy(\.isNumber),
                     "keys code printed \(code)", sourceLocation: sourceLocation)
        return code
    }

    /// Moves RBS_CLOCK one 30-second step on, so the next code is fresh.
    func step() { clock += 30 }

    /// The arguments of `run OP --set … --code CODE --json`; with `confirmDuplicate` (the default: most tests post the
    /// same payment again on purpose) also `--confirm-duplicate`.
    func runArguments(_ operation: String, _ assignments: [String], code: String, confirmDuplicate: Bool = true) -> [String] {
        ["run", operation] + assignments.flatMap { ["--set", $0] } + ["--code", code, "--json"]
            + (confirmDuplicate ? ["--confirm-duplicate"] : [])
    }

    /// `run` with `code` (or a fresh code one step later), decoded.
    func run(_ operation: String, _ assignments: [String], code: String? = nil, confirmDuplicate: Bool = true,
             sourceLocation: SourceLocation = #_sourceLocation) throws -> (report: RunJSON, process: ProcessResult) {
        let code = try code ?? { step(); return try self.code(sourceLocation: sourceLocation) }()
        let result = try host(runArguments(operation, assignments, code: code, confirmDuplicate: confirmDuplicate),
                              sourceLocation: sourceLocation)
        let report = try decode(RunJSON.self, result.stdout, sourceLocation: sourceLocation)
        #expect(result.status == (report.status == "posted" ? 0 : 1), "run: \(result)", sourceLocation: sourceLocation)
        return (report, result)
    }

    // MARK: - The ledger

    func journal(sourceLocation: SourceLocation = #_sourceLocation) throws -> [JournalEntryJSON] {
        let result = try host(["journal", "--json"], sourceLocation: sourceLocation)
        try #require(result.status == 0, "journal --json: \(result)", sourceLocation: sourceLocation)
        return try decode([JournalEntryJSON].self, result.stdout, sourceLocation: sourceLocation)
    }

    var database: URL { data.appendingPathComponent("rbs.sqlite") }

    /// Reads the core's tables with python3's sqlite3 module (read only: nothing is changed).
    func query(_ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String]] {
        let script = """
            import json, sqlite3, sys
            db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
            print(json.dumps([[str(v) for v in row] for row in db.execute(sys.argv[2])]))
            """
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, database.path, sql],
                                    environment: ProcessInfo.processInfo.environment, sourceLocation: sourceLocation)
        try #require(result.status == 0, "python3 sqlite3 (python3 is needed to read the core's tables): \(result)",
                     sourceLocation: sourceLocation)
        return try decode([[String]].self, result.stdout, sourceLocation: sourceLocation)
    }

    /// Every account's balance in the core.
    func balances(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Decimal] {
        var balances: [String: Decimal] = [:]
        for row in try query("SELECT number, balance FROM accounts", sourceLocation: sourceLocation) {
            balances[row[0]] = try #require(Decimal(string: row[1], locale: Locale(identifier: "en_US_POSIX")),
                                            sourceLocation: sourceLocation)
        }
        return balances
    }
}

// MARK: - JSON

func decode<T: Decodable>(_ type: T.Type, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    do {
        return try JSONDecoder().decode(type, from: Data(text.utf8))
    } catch {
        Issue.record("cannot decode \(T.self): \(error)\n\(text)", sourceLocation: sourceLocation)
        throw error
    }
}

/// The JSON value of `text`, for checking exact key sets.
func jsonObject(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

/// The keys of a JSON object.
func keys(_ object: Any?) -> Set<String> {
    Set((object as? [String: Any])?.keys.map { $0 } ?? [])
}

/// `describe --json`.
struct FormJSON: Decodable {
    var operation: String
    var atoms: [AtomJSON]
    var ready: Bool
    var formError: String?

    subscript(_ id: String) -> AtomJSON {
        guard let atom = atoms.first(where: { $0.id == id }) else {
            Issue.record("no atom \(id) in \(operation): \(atoms.map(\.id))")
            return AtomJSON(id: id, kind: "?", caption: "", visible: false, value: nil, error: nil)
        }
        return atom
    }
}

struct AtomJSON: Decodable, Equatable {
    var id: String
    var kind: String
    var caption: String
    var visible: Bool
    var value: String?
    var error: String?
}

/// `run --json`.
struct RunJSON: Decodable {
    struct Document: Decodable {
        var id: String
        var operation: String
        var plugin: String
        var pluginVersion: String
        var createdAt: String
        var keyId: String
        var fields: [String: String]
    }

    struct Issue: Decodable, Equatable {
        var atom: String?
        var message: String
    }

    struct Posting: Decodable, Equatable {
        var debit: String
        var credit: String
        var amount: String
        var currency: String
        var balanceAfter: String
    }

    var status: String
    var journal: Int64?
    var document: Document?
    var errors: [Issue]
    var posting: Posting?
}

/// One entry of `journal --json` (Sources/RBSLedger/Journal/JournalEntry.swift).
struct JournalEntryJSON: Decodable {
    var sequence: Int64
    var kind: String
    var documentId: String
    var document: String
    var signature: String
    var keyId: String
    var reasonCode: String?
    var reason: String?
    var debit: String?
    var credit: String?
    var amount: String?
    var currency: String?
    var balanceAfter: String?
    var recordedAt: String
    var previousHash: String
    var hash: String
}

extension Decimal {
    init(_ text: String) { self = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan }
}

extension HostSandbox {
    /// Keys enrolled, then a quick payment out of the current account on 28.05.2026 (entry 1, 1 500,50) and, the
    /// next day, a transfer of 1 000,25 from savings into it (entry 2): what statements and receipts are read from.
    static func withTwoPostings() throws -> HostSandbox {
        let sandbox = try HostSandbox()
        try sandbox.initKeys()
        #expect(try sandbox.run("pay.pp.quick", RunTests.quick).report.status == "posted")
        sandbox.clock += 86_400
        #expect(try sandbox.run("transfer.own", ["fromAccount=\(Demo.savings)", "toAccount=\(Demo.current)",
                                                 "amount=1 000,25"]).report.status == "posted")
        return sandbox
    }
}
