import Foundation
@testable import RBSCore
import Testing

/// The Rust binding (`SDK/rust/rbs-plugin-abi`) at parity with the C headers: a plugin written against it reaches
/// init/deinit, every host service of rbs/services.h and every extension (requirements, document labels, texts,
/// state), in this process and in a worker (issue #32 item 7).
@Suite("Rust binding: every extension and service", .serialized)
struct RustBindingTests {
    /// The fixture plugin, built once with cargo (offline: the binding is a path crate, no registry).
    static let plugin: Result<URL, any Error> = Result {
        let manifest = Fixtures.root.appendingPathComponent("Tests/Fixtures/rust-extensions/Cargo.toml")
        let target = Fixtures.temporaryDirectory("rust-extensions-target")
        var environment = ProcessInfo.processInfo.environment
        environment["CARGO_TARGET_DIR"] = target.path
        let (status, output) = Fixtures.run("/usr/bin/env", ["cargo", "build", "--release", "--offline", "--manifest-path", manifest.path],
                                            environment: environment)
        guard status == 0 else {
            throw Fixtures.CompileError(description: "cargo build of Tests/Fixtures/rust-extensions failed (cargo is needed; `make test` checks for it): \(output)")
        }
        return target.appendingPathComponent("release/librust_extensions.so")
    }

    /// A folder with the fixture plugin and a runtime over it with a frozen clock and the demo accounts.
    static func host(isolation: IsolationSettings?) throws -> (Runtime, URL, StandardErrorLog) {
        let folder = Fixtures.temporaryDirectory("rust-extensions")
        let file = folder.appendingPathComponent("rust-extensions.so")
        try FileManager.default.copyItem(at: try plugin.get(), to: file)
        let log = StandardErrorLog(minimum: .error)
        let runtime = Runtime(paths: HostPaths(plugins: folder.path, data: Fixtures.temporaryDirectory("rust-data")),
                              accounts: StaticAccounts(DemoAccounts.list),
                              clock: FixedClock(Date(timeIntervalSince1970: 1_780_000_000)), log: log, isolation: isolation)
        runtime.loadPlugins()
        return (runtime, file, log)
    }

    @Test("in this process and in a worker: services answer, texts and labels translate, state survives a reload",
          arguments: [false, true])
    func everyExtension(inWorker: Bool) throws {
        let (runtime, file, log) = try Self.host(isolation: inWorker ? WorkerIsolationTests.settings(deadline: .seconds(10)) : nil)
        #expect(runtime.registry.failedRecords.isEmpty, "\(runtime.registry.failedRecords.map(\.error))")
        let session = try runtime.open("rust.ext")
        // rbs.clock/1 (the frozen clock), rbs.accounts/1 (count, at, find), the run counter.
        #expect(session.atom("today")?.caption == "2026-05-28 at 1780000000000 ms")
        let first = try #require(DemoAccounts.list.first)
        #expect(session.atom("accounts")?.caption
                    == "\(DemoAccounts.list.count) accounts, the first \(first.number) (\(first.currency)), found again by number")
        #expect(session.atom("runs")?.caption == "run 1")
        // rbs.directory/1, and rbs.log/1 from a callback.
        try session.commit("bic", text: "044525225")
        let bank = try #require(BankDirectory.bundled().bank(bic: "044525225"))
        #expect(session.atom("bank")?.caption == "\(bank.name), \(bank.city)")
        #expect(session.atom("bic")?.error == nil)
        try session.commit("bic", text: "000000000")
        #expect(session.atom("bic")?.error == "no bank with this BIC in the directory")
        try session.commit("bic", text: "044525225")
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
        #expect(log.lines.contains("[info] rust-extensions: init"), "\(log.lines)")
        #expect(log.lines.contains("[info] rust-extensions: looked up 044525225"), "\(log.lines)")
        // rbs.state/1: a new build of the same plugin takes over the count of runs opened.
        let bytes = try Data(contentsOf: file)
        let staged = file.deletingLastPathComponent().appendingPathComponent(".staged")
        try (bytes + Data("a new build".utf8)).write(to: staged)
        #expect(rename(staged.path, file.path) == 0)
        #expect(runtime.reload().map(\.change) == [.updated])
        let next = try runtime.open("rust.ext")
        defer { next.close() }
        #expect(next.atom("runs")?.caption == "run 2", "the run count came across the reload")
    }
}
