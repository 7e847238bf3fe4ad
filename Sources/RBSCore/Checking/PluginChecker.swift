import CRBSPlugin
import Crypto
import Foundation
import RBSLedger

/// The checks of `rbs-host plugin check`, run inside the checking child process (`plugin check-child`): loads one
/// plugin with a throw-away data directory (no trust needed), then exercises every operation through the same
/// `FormSession` the host uses. Every check is announced on the protocol (``CheckProtocol``) before it runs, so a
/// parent that sees the child die or hang knows which check did it.
///
/// The checks, in order:
/// - `load`: the file loads: ELF, ABI version, every descriptor validated, every expression compiled, init() ok;
/// - `create-destroy OP`: 100 runs opened and closed; no instance left alive;
/// - `input OP/ATOM` (each atom that holds a value): random, empty, over-long (10 KB) values committed as a person
///   would, then over-long and invalid-UTF-8 bytes handed straight to value_changed;
/// - `recorded OP/ATOM` (each atom the plugin lists in rbs.recorded-atoms/1): plausible, random and empty values
///   handed to value_changed at once, as the host never does for such an atom; a call into the host, a status other
///   than RBS_OK or a change a person would see breaks the promise the host skips those calls on;
/// - `submit OP`: an empty submit, buttons pressed, plausible values committed and a submit;
/// - `leak OP`: after a warm-up, 1,000 runs opened and closed; resident memory may grow by at most `leakLimit`;
/// - `case N NAME` (with `--cases FILE`): the author's values entered in order, then the document or the refusal the
///   case expects (``CheckCase``); a document must also be one the core accepts;
/// - `unload`: every plugin stopped (deinit).
public final class PluginChecker {
    /// A named check and its body (nil: passed with that detail; otherwise the failure).
    struct Check {
        var name: String
        var body: () -> Outcome
    }

    enum Outcome {
        case pass(String)
        case fail(String)
    }

    public let path: String
    /// How much the resident memory may grow over the leak check's create/destroy cycles.
    public var leakLimit: Int
    /// How many runs the leak check opens and closes.
    public var cycles: Int
    /// The author's cases (`--cases FILE`), run after the built-in checks.
    public var cases: [CheckCase] = []
    private let emit: (CheckProtocol.Line) -> Void
    private let data: URL
    private var runtime: Runtime?
    private var image: PluginImage?

    /// Whether the plugin runs confined (``PluginWorker/confineCheck(plugin:dataFolder:warn:)``): the child locks
    /// itself down just before the plugin's code first runs, so a plugin under check — one not trusted yet — reads no
    /// key, writes nothing outside the throw-away data folder and is held to a worker's limits.
    public var confined = false
    /// Whether `data` is this checker's own (removed when it ends) or the supervisor's.
    private let ownsData: Bool

    /// - Parameters:
    ///   - workspace: the throw-away data folder (the supervisor makes one a child and removes it after: a confined
    ///     child may empty it but not remove it); nil: one of this checker's own.
    ///   - emit: writes one protocol line (unbuffered: the process may die right after).
    public init(path: String, leakLimit: Int = 4 << 20, cycles: Int = 1_000, workspace: URL? = nil,
                emit: @escaping (CheckProtocol.Line) -> Void) {
        self.path = path
        self.leakLimit = leakLimit
        self.cycles = max(1, cycles)
        self.emit = emit
        data = workspace ?? FileManager.default.temporaryDirectory.appendingPathComponent("rbs-check-\(UUID().uuidString)")
        ownsData = workspace == nil
    }

    deinit { if ownsData { try? FileManager.default.removeItem(at: data) } }

    /// Runs the checks from index `start` on (the earlier ones already ran in a child that died).
    public func run(from start: Int = 0) {
        defer { emit(.end) }
        if start == 0 { emit(.begin(index: 0, name: "load")) }
        let loaded = load()
        if start == 0 {
            switch loaded {
            case .pass(let detail): emit(.pass(index: 0, detail: detail))
            case .fail(let reason):
                emit(.fail(index: 0, reason: reason))
                return
            }
        }
        guard case .pass = loaded, let image else { return }
        let checks = self.checks(image)
        for (offset, check) in checks.enumerated() {
            let index = offset + 1
            guard index >= start else { continue }
            emit(.begin(index: index, name: check.name))
            switch check.body() {
            case .pass(let detail): emit(.pass(index: index, detail: detail))
            case .fail(let reason): emit(.fail(index: index, reason: reason))
            }
        }
    }

    // MARK: - Loading

    private func load() -> Outcome {
        try? FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // The throw-away folder's first start: the core's demo accounts are what the checks fill forms with.
        if Ledger.isFresh(data), let (ledger, _) = try? Ledger.create(dataDirectory: data) { try? ledger.close() }
        let folder = TrustFile.directory(of: path)
        // Confined after the plugin's bytes are copied into the data folder, just before the copy is opened: its
        // code never runs unconfined, and nothing before needs the sandbox's user to read the author's folder.
        let plugin = path
        let dataFolder = data.path
        let policy: PluginLoadPolicy? = confined ? PluginLoadPolicy(verify: nil, beforeOpening: { _ throws(PluginProblem) in
            if let problem = PluginWorker.confineCheck(plugin: plugin, dataFolder: dataFolder, warn: { warning in
                FileHandle.standardError.write(Data("rbs-host plugin check: \(warning)\n".utf8))
            }) {
                throw .workerFailed("(the checking child) could not confine itself before opening the plugin: \(problem)")
            }
        }) : nil
        let runtime = Runtime(paths: HostPaths(plugins: folder, data: data), log: StandardErrorLog(minimum: .error),
                              policy: policy)
        self.runtime = runtime
        guard let image = runtime.registry.load(path: path) else {
            let error = runtime.registry.records.last { $0.path == path || $0.path.hasSuffix("/" + path) }?.error
                ?? "\(path): not loaded"
            return .fail(error)
        }
        self.image = image
        let manifest = image.manifest
        let atoms = manifest.operations.reduce(0) { $0 + $1.atoms.count }
        return .pass("\(manifest.id) \(manifest.version): \(manifest.operations.count) operation(s), \(atoms) atoms — descriptors valid, expressions compiled, init() ok")
    }

    // MARK: - The checks

    private func checks(_ image: PluginImage) -> [Check] {
        var checks: [Check] = []
        for operation in image.manifest.operations {
            let id = operation.id
            checks.append(Check(name: "create-destroy \(id)") { [unowned self] in createDestroy(id, times: 100) })
            for atom in operation.atoms where atom.holdsValue {
                checks.append(Check(name: "input \(id)/\(atom.id)") { [unowned self] in inputs(id, atom) })
            }
            for atomID in operation.recordedAtoms {
                guard let atom = operation.atoms.first(where: { $0.id == atomID }) else { continue }
                checks.append(Check(name: "recorded \(id)/\(atomID)") { [unowned self] in recorded(id, atom) })
            }
            checks.append(Check(name: "submit \(id)") { [unowned self] in submit(operation) })
            checks.append(Check(name: "leak \(id)") { [unowned self] in leak(id) })
        }
        for (index, item) in cases.enumerated() {
            checks.append(Check(name: "case \(index + 1) \(item.name)") { [unowned self] in run(item) })
        }
        checks.append(Check(name: "unload") { [unowned self] in unload() })
        return checks
    }

    private var live: Int { image?.liveModules ?? 0 }

    /// A run, or why it could not be opened.
    enum Opened {
        case success(FormSession)
        case failure(String)
    }

    private func open(_ id: String) -> Opened {
        guard let runtime else { return .failure("the plugin is not loaded") }
        emit(.step("opening a run (create)"))
        do { return .success(try runtime.open(id)) } catch {
            return .failure("\(error.description) — create() must return an instance for a fresh run")
        }
    }

    private func leftAlive(_ what: String) -> Outcome? {
        guard live != 0 else { return nil }
        return .fail("\(live) instance(s) still alive after \(what) — the host's count of open runs did not return to 0")
    }

    private func createDestroy(_ id: String, times: Int) -> Outcome {
        emit(.step("opening and closing \(times) runs"))
        for run in 0..<times {
            switch open(id) {
            case .success(let session): session.close()
            case .failure(let why): return .fail("run \(run + 1): \(why)")
            }
        }
        return leftAlive("\(times) runs") ?? .pass("\(times) runs created and destroyed, none left alive")
    }

    private func inputs(_ id: String, _ atom: AtomDescriptor) -> Outcome {
        let session: FormSession
        switch open(id) {
        case .success(let opened): session = opened
        case .failure(let why): return .fail(why)
        }
        var generator = CheckValues(seed: atom.id.utf8.reduce(UInt64(1)) { $0 &* 31 &+ UInt64($1) })
        var committed = 0
        func commit(_ text: String, _ what: String) {
            emit(.step("committing \(what) to \(atom.id)"))
            _ = try? session.commit(atom.id, text: text)
            committed += 1
        }
        for _ in 0..<20 { commit(generator.random(for: atom), "a random value") }
        commit("", "an empty value")
        commit(String(repeating: atom.inputType == .text ? "x" : "7", count: 10_240), "an over-long value (10 KB)")
        emit(.step("handing value_changed 10 KB of bytes for \(atom.id)"))
        _ = session.feedRaw(atom: atom.id, bytes: Array(repeating: UInt8(ascii: "9"), count: 10_240))
        for bytes in CheckValues.invalidUTF8 {
            emit(.step("handing value_changed invalid UTF-8 \(bytes.map { String($0, radix: 16) }) for \(atom.id)"))
            _ = session.feedRaw(atom: atom.id, bytes: bytes)
        }
        emit(.step("closing the run"))
        session.close()
        return leftAlive("the run") ?? .pass("\(committed) values committed, over-long and invalid UTF-8 handed to value_changed")
    }

    /// Holds a listed atom to the promise of rbs.recorded-atoms/1 (rbs/ext/recorded_atoms.h): its value_changed only
    /// records the value. The host skips the call on a commit to such an atom and makes it later, with the run's next
    /// call, so whatever else the plugin does there is never shown or shown late — a broken form no other check
    /// sees. Here every value is handed over at once and watched: the calls into the host, the status, and what a
    /// person would see of the form before and after.
    private func recorded(_ id: String, _ atom: AtomDescriptor) -> Outcome {
        let session: FormSession
        switch open(id) {
        case .success(let opened): session = opened
        case .failure(let why): return .fail(why)
        }
        defer { session.close() }
        let plugin = image?.manifest.id ?? path
        var generator = CheckValues(seed: atom.id.utf8.reduce(UInt64(7)) { $0 &* 31 &+ UInt64($1) })
        let values = Array(CheckValues.candidates(for: atom).prefix(4)) + (0..<8).map { _ in generator.random(for: atom) } + [""]
        var told = 0
        for text in values {
            emit(.step("handing value_changed '\(text)' for \(atom.id) at once"))
            let seen: FormSession.AtOnce
            do { seen = try session.valueChangedAtOnce(atom.id, text: text) } catch {
                if session.isClosed { return .fail("value_changed of '\(atom.id)' with '\(text)': \(session.describe(error))") }
                continue // a value the host refuses never reaches the plugin
            }
            told += 1
            var did = seen.calls.map { "called \($0)" }
            if let status = seen.status, status != rbs_status_t(RBS_OK) { did.append("returned \(Self.statusName(status))") }
            if !seen.changes.isEmpty { did.append("changed what the form shows (\(seen.changes.joined(separator: "; ")))") }
            guard did.isEmpty else {
                return .fail("plugin \(plugin), operation \(id): value_changed of '\(atom.id)' with '\(text)' \(did.joined(separator: ", ")) — an atom listed in rbs.recorded-atoms/1 must only record its value; take it out of the list or do the rest elsewhere (see rbs/ext/recorded_atoms.h)")
            }
        }
        guard told > 0 else { return .pass("no value checked: the host refused every value tried, so value_changed never sees one") }
        return .pass("\(told) values handed to value_changed at once: each only recorded (no host call, RBS_OK, nothing shown changed)")
    }

    /// RBS_INVALID and the like, for a message.
    private static func statusName(_ status: rbs_status_t) -> String {
        switch status {
        case rbs_status_t(RBS_OK): "RBS_OK"
        case rbs_status_t(RBS_INVALID): "RBS_INVALID"
        case rbs_status_t(RBS_FAILED): "RBS_FAILED"
        default: "status \(status)"
        }
    }

    private func submit(_ operation: OperationDescriptor) -> Outcome {
        let session: FormSession
        switch open(operation.id) {
        case .success(let opened): session = opened
        case .failure(let why): return .fail(why)
        }
        emit(.step("submitting the empty form"))
        _ = session.submit()
        for atom in operation.atoms where atom.kind == .button && !atom.flags.contains(.submit) {
            emit(.step("pressing \(atom.id)"))
            _ = try? session.press(atom.id)
        }
        // Valid values, as far as the atoms' own checks tell: so that the document a person could submit is built.
        // Two passes: an atom checked against a later one (an account's key against the BIC after it) gets its turn
        // again once the later one has a value.
        for pass in 0..<2 {
            for atom in operation.atoms where atom.holdsValue
                && (pass == 0 || session.attention().contains(where: { $0.atom == atom.id })) {
                emit(.step("committing a plausible value to \(atom.id)"))
                for candidate in CheckValues.candidates(for: atom) {
                    guard (try? session.commit(atom.id, text: candidate)) != nil else { continue }
                    if !session.attention().contains(where: { $0.atom == atom.id }) { break }
                }
            }
        }
        emit(.step("submitting the filled form"))
        let outcome = session.submit()
        emit(.step("closing the run"))
        session.close()
        let what: String
        switch outcome {
        case .ready(let draft):
            emit(.step("checking the document against the contract (the core's own validation)"))
            if let breach = contractBreach(draft) {
                return leftAlive("submitting") ?? .fail("the document \(Self.describe(draft)) breaks the document contract: \(breach) — see rbs_document_builder_t in rbs/operation.h")
            }
            what = "a document was built and the core would accept it (\(Self.describe(draft)))"
        case .needsAttention(let issues):
            what = "no plausible values found that pass the form's own checks (\(Self.describe(issues))), so no document was checked"
        case .failed(let why): what = "refused: \(why)"
        }
        return leftAlive("submitting") ?? .pass("empty and filled submits answered; \(what)")
    }

    /// An author's case: its values committed in order, then the submit; the outcome against what the case expects.
    private func run(_ item: CheckCase) -> Outcome {
        guard image?.manifest.operations.contains(where: { $0.id == item.operation }) == true else {
            let known = image?.manifest.operations.map(\.id).joined(separator: ", ") ?? ""
            return .fail("the plugin has no operation '\(item.operation)' (it has \(known))")
        }
        let session: FormSession
        switch open(item.operation) {
        case .success(let opened): session = opened
        case .failure(let why): return .fail(why)
        }
        defer { session.close() }
        // Refusals seen on the way: a commit refused outright, or a value kept with an error on its atom.
        var refusals: [AtomIssue] = []
        for (atom, value) in item.values {
            emit(.step("entering \(atom) = \(value)"))
            do {
                let announced = try session.commit(atom, text: value, reader: .script)
                refusals += announced.errors.map { AtomIssue(atom: $0.id, message: $0.message) }
            } catch {
                if session.isClosed { return .fail("entering \(atom): \(session.describe(error))") }
                refusals.append(AtomIssue(atom: error.atom ?? atom, message: Self.message(of: error)))
            }
        }
        emit(.step("submitting"))
        let outcome = session.submit()
        switch (item.expectation, outcome) {
        case (.document(let expected), .ready(let draft)):
            let fields = Dictionary(draft.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            let wrong = expected.keys.sorted().compactMap { key -> String? in
                guard let actual = fields[key] else { return "\(key) is missing" }
                return actual == expected[key] ? nil : "\(key) is '\(actual)', expected '\(expected[key] ?? "")'"
            }
            guard wrong.isEmpty else {
                return .fail("the document \(Self.describe(draft)) differs: \(wrong.joined(separator: "; "))")
            }
            emit(.step("asking the core whether it would accept the document"))
            if let breach = contractBreach(draft) { return .fail("the document was built as expected, but \(breach)") }
            return .pass("the document has the \(expected.count) field(s) expected, and the core accepts it")
        case (.document, .needsAttention(let issues)):
            return .fail("expected a document, but the form needs attention: \(Self.describe(refusals + issues))")
        case (.refused(let atom, let message), .ready(let draft)):
            let seen = refusals.first { $0.atom == atom }
            guard let seen else {
                return .fail("expected \(atom ?? "the form") to be refused, but a document was built: \(Self.describe(draft))")
            }
            return Self.matching(seen, message)
        case (.refused(let atom, let message), .needsAttention(let issues)):
            guard let seen = (refusals + issues).first(where: { $0.atom == atom }) else {
                return .fail("expected \(atom ?? "the form") to be refused; refused instead: \(Self.describe(refusals + issues))")
            }
            return Self.matching(seen, message)
        case (_, .failed(let why)):
            return .fail("the submit failed: \(why)")
        }
    }

    /// A refusal that names the expected atom, checked against the expected message when one is given.
    private static func matching(_ seen: AtomIssue, _ message: String?) -> Outcome {
        if let message, seen.message != message {
            return .fail("\(seen.atom ?? "the form") was refused with '\(seen.message)', expected '\(message)'")
        }
        return .pass("\(seen.atom ?? "the form") refused: \(seen.message)")
    }

    private static func describe(_ issues: [AtomIssue]) -> String {
        issues.isEmpty ? "nothing named" : issues.map { "\($0.atom ?? "the form"): \($0.message)" }.joined(separator: "; ")
    }

    private static func message(of error: FormSessionError) -> String {
        if case .invalid(_, let message) = error { return message }
        return error.description
    }

    /// The document's keys, for a message: "{from, account, amount, currency}".
    static func describe(_ draft: DocumentDraft) -> String { "{" + draft.fields.map(\.key).joined(separator: ", ") + "}" }

    /// Why the core would refuse `draft` for a reason the plugin controls (the document contract), or nil: the
    /// document is built as the host builds it (keys, characters, the amount's form) and handed to the embedded
    /// bank's posting path in the check's throw-away data folder — the very rules of posting, not a copy of them. A refusal that
    /// depends on the customer's money rather than on the document (insufficient funds, a blocked account) is not a
    /// breach.
    private func contractBreach(_ draft: DocumentDraft) -> String? {
        // A throw-away signing key: the check's data folder is its own, and nothing a person owns is touched.
        let key = Curve25519.Signing.PrivateKey()
        let document: Document
        do {
            document = try Document(operation: draft.operation, plugin: draft.plugin, pluginVersion: draft.pluginVersion,
                                    fields: draft.fields.map { DocumentField($0.key, $0.value) }, createdAt: Date(),
                                    nonce: Document.randomNonce(), keyId: SigningIdentity.keyId(of: key.publicKey))
        } catch {
            return "\(error)"
        }
        guard let runtime else { return nil }
        do {
            // Posting in the check's own throw-away data folder runs every rule the core applies to a real document.
            let signed = SignedDocument(document: document, signature: try key.signature(for: document.canonicalBytes))
            guard case .rejected(_, _, let rejection) = try runtime.ledger().bank.submit(signed: signed, publicKey: key.publicKey)
            else { return nil }
            switch rejection.code {
            // The bank's state, not the plugin's fault (a conversion in the check's folder, which has no rates).
            case .insufficientFunds, .accountBlocked, .noExchangeRate: return nil
            default: return "the core would reject it: \(rejection.message)"
            }
        } catch {
            return "the core could not check it: \(error)"
        }
    }

    private func leak(_ id: String) -> Outcome {
        emit(.step("warming up with 100 runs"))
        for _ in 0..<100 {
            guard case .success(let session) = open(id) else { return .fail("create() failed during the warm-up") }
            session.close()
        }
        guard let before = ResidentMemory.bytes else { return .pass("resident memory cannot be read here: skipped") }
        emit(.step("opening and closing \(cycles) runs"))
        for run in 0..<cycles {
            switch open(id) {
            case .success(let session): session.close()
            case .failure(let why): return .fail("run \(run + 1): \(why)")
            }
        }
        let growth = (ResidentMemory.bytes ?? before) - before
        if let alive = leftAlive("\(cycles) runs") { return alive }
        let text = String(format: "%.1f MB", Double(growth) / 1_048_576)
        guard growth <= leakLimit else {
            return .fail("resident memory grew by \(text) over \(cycles) create/destroy cycles (limit \(leakLimit >> 20) MB) — destroy() must free everything create() allocated")
        }
        return .pass("\(cycles) create/destroy cycles, resident memory grew by \(text)")
    }

    private func unload() -> Outcome {
        emit(.step("stopping the plugin (deinit)"))
        runtime?.registry.unloadAll()
        return .pass("deinit() returned")
    }
}
