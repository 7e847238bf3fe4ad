import Foundation
@testable import RBSCore
import Testing

/// The SDKs at parity with the C headers (issue #32 item 7): one plugin in C, one written against the Rust binding
/// (`SDK/rust/rbs-plugin-abi`) and one written with RBSPluginKit, the same form each, reach init/deinit, every host
/// service of rbs/services.h and every extension (requirements, document labels, texts, state, function reads) and run-time texts, in
/// this process and in a worker.
@Suite("SDK parity: every extension and service from C, Rust and Swift", .serialized)
struct SDKParityTests {
    enum Language: String, CaseIterable, Sendable { case c, rust, swift }
    /// The fixture plugin, built once with cargo (offline: the binding is a path crate, no registry), into the
    /// target folder `make test` builds it in beside the host (``rustTarget``): cargo then only checks it is current.
    static let plugin: Result<URL, any Error> = Result {
        let manifest = Fixtures.root.appendingPathComponent("Tests/Fixtures/rust-extensions/Cargo.toml")
        let target = Fixtures.root.appendingPathComponent(rustTarget)
        var environment = ProcessInfo.processInfo.environment
        environment["CARGO_TARGET_DIR"] = target.path
        let (status, output) = Fixtures.run("/usr/bin/env", ["cargo", "build", "--release", "--offline", "--manifest-path", manifest.path],
                                            environment: environment)
        guard status == 0 else {
            throw Fixtures.CompileError(description: "cargo build of Tests/Fixtures/rust-extensions failed (cargo is needed; `make test` checks for it): \(output)")
        }
        return target.appendingPathComponent("release/librust_extensions.so")
    }

    /// Where the Rust fixture is built (in the package's build folder, out of git): the Makefile's `test-fixtures`
    /// builds it there while Swift compiles the host, so the suite does not spend its time in cargo.
    static let rustTarget = ".build/test-fixtures/rust-extensions"

    /// The Swift twin, built by `make plugins` with the example plugins (Examples/swift, product ExtensionsCheck).
    static func swiftPlugin() throws -> URL {
        let built = Fixtures.root.appendingPathComponent("Examples/swift/.build/release/libExtensionsCheck.so")
        guard FileManager.default.fileExists(atPath: built.path) else {
            throw Fixtures.CompileError(description: "\(built.path) is missing: run make plugins first")
        }
        return built
    }

    /// A folder with the fixture plugin and a runtime over it with a frozen clock and the demo accounts.
    static func host(_ language: Language, isolation: IsolationSettings?) throws -> (Runtime, URL, StandardErrorLog) {
        let folder = Fixtures.temporaryDirectory("\(language)-extensions")
        let file = folder.appendingPathComponent("\(language)-extensions.so")
        switch language {
        case .c: try Fixtures.compile(Fixtures.root.appendingPathComponent("Tests/Fixtures/extensions/extensions.c"), to: file)
        case .rust: try FileManager.default.copyItem(at: try plugin.get(), to: file)
        case .swift: try FileManager.default.copyItem(at: try swiftPlugin(), to: file)
        }
        let log = StandardErrorLog(minimum: .error)
        let runtime = Runtime(paths: HostPaths(plugins: folder.path, data: Fixtures.temporaryDirectory("rust-data")),
                              accounts: StaticAccounts(DemoAccounts.list),
                              clock: FixedClock(Date(timeIntervalSince1970: 1_780_000_000)), log: log, isolation: isolation)
        runtime.loadPlugins()
        return (runtime, file, log)
    }

    @Test("in this process and in a worker: services answer, texts and labels translate, state survives a reload",
          arguments: Language.allCases, [false, true])
    func everyExtension(language: Language, inWorker: Bool) throws {
        let (runtime, file, log) = try Self.host(language, isolation: inWorker ? WorkerIsolationTests.settings(deadline: .seconds(10)) : nil)
        #expect(runtime.registry.failedRecords.isEmpty, "\(runtime.registry.failedRecords.map(\.error))")
        let operation = "\(language).ext"
        // What the plugin logs is tagged by its source: C and Rust name themselves, RBSPluginKit's `host.log` the id.
        let source = language == .swift ? "tests.swift.extensions" : "\(language)-extensions"
        let session = try runtime.open(operation)
        // rbs.clock/1 (the frozen clock), rbs.accounts/1 (count, at, find), the run counter.
        #expect(session.atom("today")?.caption == "2026-05-28 at 1780000000000 ms")
        let first = try #require(DemoAccounts.list.first)
        #expect(session.atom("accounts")?.caption
                    == "\(DemoAccounts.list.count) accounts, the first \(first.number) (\(first.currency)), found again by number")
        #expect(session.atom("runs")?.caption == (language == .swift ? "run 1, 0 cards" : "run 1"))
        // rbs.function-reads/1: bankKnown reads bic alone, and shows the bank's line once the directory knew it.
        #expect(session.operation.descriptor.functions.map(\.reads) == [["bic"]])
        #expect(session.atom("bank")?.visible == false)
        // rbs.directory/1, and rbs.log/1 from a callback.
        try session.commit("bic", text: "044525225")
        #expect(session.atom("bank")?.visible == true)
        let bank = try #require(BankDirectory.bundled().bank(bic: "044525225"))
        #expect(session.atom("bank")?.caption == "\(bank.name), \(bank.city)")
        #expect(session.atom("bic")?.error == nil)
        try session.commit("bic", text: "000000000")
        #expect(session.atom("bic")?.error == "no bank with this BIC in the directory")
        #expect(session.atom("bank")?.visible == false)
        // rbs.run-texts/1: the plugin's mark in each language, shown in the reader's, also after a switch.
        session.language = .ru
        #expect(session.atom("bic")?.error == "банка с таким БИК нет в справочнике")
        #expect(session.attention().map(\.message).contains("банка с таким БИК нет в справочнике"))
        session.language = .en
        #expect(session.atom("bic")?.error == "no bank with this BIC in the directory")
        try session.commit("bic", text: "044525225")
        #expect(session.atom("bic")?.error == nil)
        // rbs.texts/1: the operation's title and an atom's caption in Russian; rbs.document-labels/1 in the review.
        session.language = .ru
        #expect(session.operation.descriptor.title == "Проверка расширений")
        #expect(session.atom("bic")?.caption == "БИК")
        guard case .ready(let draft) = session.submit() else {
            Issue.record("the document must build: \(session.attention())")
            return
        }
        #expect(draft["bic"] == "044525225" && draft["day"] == "2026-05-28", "\(draft)")
        #expect(session.operation.descriptor.documentLabels.first { $0.key == "day" }?.label == "День")
        session.close()
        // init() ran and logged through rbs.log/1 (in a worker too: its init's callbacks are served while it starts),
        // and a callback logged the lookup.
        #expect(log.lines.contains("[info] \(source): init"), "\(log.lines)")
        #expect(log.lines.contains("[info] \(source): looked up 044525225"), "\(log.lines)")
        if language == .swift && !inWorker {
            // register_service from init(): the service is the host's to hand out.
            #expect(runtime.locator.table(id: "tests.swift.extensions.answer/1") != nil)
        }
        // rbs.state/1: a new build of the same plugin takes over the count of runs opened.
        let bytes = try Data(contentsOf: file)
        let staged = file.deletingLastPathComponent().appendingPathComponent(".staged")
        try (bytes + Data("a new build".utf8)).write(to: staged)
        #expect(rename(staged.path, file.path) == 0)
        #expect(runtime.reload().map(\.change) == [.updated])
        let next = try runtime.open(operation)
        defer { next.close() }
        #expect(next.atom("runs")?.caption.hasPrefix("run 2") == true, "the run count came across the reload")
    }
}
