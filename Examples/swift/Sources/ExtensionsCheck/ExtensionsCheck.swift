import RBSPluginKit
import Synchronization

/// tests.swift.extensions — a test plugin, not an example to copy into Plugins/: it reaches every extension and host
/// service of the C ABI through RBSPluginKit, so an SDK that lags the headers fails a test (issue #32 item 7):
/// init/deinit with the host's services and `register`, rbs.accounts/1, rbs.directory/1, rbs.log/1, rbs.clock/1,
/// rbs.cards/1, and the extensions rbs.requirements/1, rbs.document-labels/1, rbs.texts/1, rbs.state/1 (the count
/// of runs opened survives a hot reload) and rbs.function-reads/1 (bankKnown reads bic alone). Its form shows what the
/// services said in its text atoms' captions. Its twins: Tests/Fixtures/extensions (C), Tests/Fixtures/rust-extensions.
final class ExtensionsCheckOperation: Operation, OperationDefinition {
    static let id = "swift.ext"
    static let title = "Extensions check"
    static let category = "Tests"
    static let functions: [ExportedFunction] = [
        .method("bankKnown", symbol: "swift_ext_bank_known", signature: "bool()", reads: ["bic"]),
    ]
    static let documentLabels = [
        DocumentFieldLabel("bic", atom: "bic"),
        DocumentFieldLabel("day", "Day"),
    ]
    static let translations = [
        Translation("ru", title: "Проверка расширений", captions: ["bic": "БИК"], labels: ["day": "День"]),
    ]

    let today = TextAtom(caption: "Today")
    let accounts = TextAtom(caption: "Accounts")
    let runs = TextAtom(caption: "Runs")
    let bic = TextInputAtom(caption: "BIC", type: .digitsOnly, length: 9...9)
    let bank = TextAtom(caption: "Bank")
    let send = ButtonAtom(caption: "Send")

    /// Whether the directory knew the BIC this run was told last.
    var bankKnown = false

    required init() {
        super.init()
        bank.showIf("bankKnown")
    }

    override var atoms: [Atom] { [today, accounts, runs, bic, bank, send] }

    /// Called by the SDK when a run opens: the services answer into the captions.
    override func onOpen() {
        let run = Counters.runs.add(1, ordering: .sequentiallyConsistent).newValue
        if let day = host.today(), let now = host.nowMilliseconds() {
            today.caption = "\(day) at \(now) ms"
        } else {
            today.caption = "no rbs.clock/1"
        }
        let all = host.accounts()
        if let first = all.first {
            let again = host.account(number: first.number)?.number == first.number ? ", found again by number" : ""
            accounts.caption = "\(all.count) accounts, the first \(first.number) (\(first.currency))\(again)"
        } else {
            accounts.caption = "\(all.count) accounts"
        }
        runs.caption = "run \(run), \(host.cards().count) cards"
    }

    override func onAtomValueChanged(_ sender: Atom, commit: Bool) {
        guard sender === bic, commit else { return }
        let found = host.bank(bic: bic.stringValue)
        bankKnown = found != nil
        if let found {
            host.log("looked up \(bic.stringValue)")
            bank.caption = "\(found.name), \(found.city)"
            bic.setError(nil)
        } else {
            // rbs.run-texts/1: the mark in English (this plugin's own language) and Russian.
            bic.setError(["en": "no bank with this BIC in the directory", "ru": "банка с таким БИК нет в справочнике"])
        }
    }

    override func document() throws(DocumentRefusal) -> [(key: String, value: String)] {
        [("bic", bic.stringValue), ("day", host.today() ?? "")]
    }
}

@_cdecl("swift_ext_bank_known")
public func swiftExtBankKnown(_ instance: UnsafeMutableRawPointer?) -> Bool {
    ExtensionsCheckOperation.from(instance)?.bankKnown ?? false
}

/// What this plugin keeps across its runs and hands to its next version.
enum Counters {
    static let runs = Atomic<UInt32>(0)
}

/// A service this plugin offers other plugins from init(): a C table that lives as long as the image.
enum AnswerService {
    nonisolated(unsafe) static let table: UnsafeMutablePointer<UInt32> = {  // written once, read only after
        let table = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        table.initialize(to: 42)
        return table
    }()
}

@_cdecl("rbs_plugin_entry")
public func rbsPluginEntry() -> UnsafeRawPointer? {
    Plugin.entry(id: "tests.swift.extensions", name: "Swift extensions", version: "1.0.0", vendor: "rbs-host tests",
                 description: "Every extension and service of the C ABI through RBSPluginKit.",
                 requires: ["rbs.accounts/1", "rbs.directory/1", "rbs.log/1", "rbs.clock/1"],
                 operations: [ExtensionsCheckOperation.self],
                 lifecycle: PluginLifecycle(
                     start: { host in
                         host.log("init")
                         return host.register("tests.swift.extensions.answer/1", table: UnsafeRawPointer(AnswerService.table))
                     },
                     stop: {},
                     state: StateHandover(
                         save: { withUnsafeBytes(of: Counters.runs.load(ordering: .sequentiallyConsistent).littleEndian) { Array($0) } },
                         load: { bytes in
                             guard bytes.count == 4 else { return false }
                             let value = bytes.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
                             Counters.runs.store(value, ordering: .sequentiallyConsistent)
                             return true
                         })))
}
