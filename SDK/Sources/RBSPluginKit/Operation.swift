import CRBSPlugin
#if canImport(Glibc)
import Glibc
#endif

/// Refuses a submit: the atom is marked with the message and the person is asked to fix it.
public struct DocumentRefusal: Error, Sendable {
    public var atom: String?
    public var message: String
    /// The message in each language the plugin writes, its own first (`rbs.run-texts/1`), or nil: only `message`.
    public var texts: KeyValuePairs<String, String>?
    public init(atom: String? = nil, _ message: String) {
        self.atom = atom
        self.message = message
    }

    /// A refusal said in each language the plugin writes, its own first: the host shows the person's.
    public init(atom: String? = nil, _ texts: KeyValuePairs<String, String>) {
        self.atom = atom
        message = texts.first?.value ?? ""
        self.texts = texts
    }
}

/// A C function the operation exports for expressions (e.g. `isDestInnCorrect`, called from a `validIf`). Whether
/// the host passes the run's instance as the C function's first parameter is said every time, never assumed: a
/// function written without that parameter but declared with it would read the instance pointer as its first
/// argument, and nothing at run time can tell (issue #32 item 7). So there is no default:
/// ```swift
/// .method("isDestInnCorrect", symbol: "pay_pp_quick_isDestInnCorrect", signature: "bool()")   // (instance) -> Bool
/// .function("isBasisDate", symbol: "pay_pp_tax_isBasisDate", signature: "bool(string)")     // (string) -> Bool
/// ```
/// A method says which atoms its answer depends on with `reads:` (`rbs.function-reads/1`, ABI 1.3): the host then
/// calls it again only when one of them changed, instead of after every commit:
/// ```swift
/// .method("isDestInnCorrect", symbol: "pay_pp_quick_isDestInnCorrect", signature: "bool()", reads: ["destInn"])
/// ```
public struct ExportedFunction: Sendable {
    public var name: String
    public var symbol: String
    public var signature: String
    /// The C function's first parameter is the instance pointer (`Operation.from(_:)` turns it back), before the
    /// parameters `signature` lists.
    public var takesInstance: Bool
    /// The ids of the atoms a method's answer depends on (besides its arguments), or nil when it does not say: then
    /// the host calls it again after every call into the run. List every atom it reads: one left out makes the host
    /// keep an answer the method would no longer give. The host refuses the plugin at load for an id the form does
    /// not have.
    public var reads: [String]?

    public init(_ name: String, symbol: String, signature: String, takesInstance: Bool, reads: [String]? = nil) {
        self.name = name
        self.symbol = symbol
        self.signature = signature
        self.takesInstance = takesInstance
        self.reads = reads
    }

    /// A function of the run: its C function takes the instance pointer first, then `signature`'s parameters.
    /// - Parameter reads: the atoms its answer depends on (see ``reads``); nil: not said.
    public static func method(_ name: String, symbol: String, signature: String,
                              reads: [String]? = nil) -> ExportedFunction {
        ExportedFunction(name, symbol: symbol, signature: signature, takesInstance: true, reads: reads)
    }

    /// A function of its arguments alone: its C function takes exactly `signature`'s parameters.
    public static func function(_ name: String, symbol: String, signature: String) -> ExportedFunction {
        ExportedFunction(name, symbol: symbol, signature: signature, takesInstance: false)
    }
}

/// Describes an operation type: its id, title and category, the functions it exports, and what its document's
/// fields mean to a person.
public protocol OperationDefinition: Operation {
    static var id: String { get }
    static var title: String { get }
    static var category: String { get }
    static var functions: [ExportedFunction] { get }
    /// Labels and roles of the document's fields for the host's review (`rbs.document-labels/1`). Without them the
    /// host shows a field under the caption of the atom whose id is its key, else under the key.
    static var documentLabels: [DocumentFieldLabel] { get }
    /// The operation's texts in other languages (`rbs.texts/1`), one ``Translation`` per language. Without them the
    /// host shows the texts declared here to every person, whatever their language.
    static var translations: [Translation] { get }
    /// The atoms for which ``Operation/onAtomValueChanged(_:commit:)`` does nothing when a value is committed
    /// (`rbs.recorded-atoms/1`, ABI 1.5): the plugin only keeps their values for ``Operation/document()`` and its
    /// methods. The host may then hand such a value over with its next call into the run instead of at once (no
    /// round trip to the plugin's worker for that commit). List an atom only when committing it calls nothing of
    /// the host (no caption, visibility, mark, value or service) and changes nothing else.
    static var recordedAtoms: [String] { get }
    /// The amount atoms that take the currency of the account chosen in an account atom, amount id → account atom id
    /// (`rbs.amount-currency/1`, ABI 1.6): the host asks for, checks and hands over such an amount in that account's
    /// currency, and the atom's declared currency holds while no account is chosen. A host older than 1.6 keeps the
    /// declared currency.
    static var amountCurrencies: [String: String] { get }
}

extension OperationDefinition {
    public static var functions: [ExportedFunction] { [] }
    public static var documentLabels: [DocumentFieldLabel] { [] }
    public static var translations: [Translation] { [] }
    public static var recordedAtoms: [String] { [] }
    public static var amountCurrencies: [String: String] { [:] }
}

/// A banking operation: a list of atoms (one line each; reorder by moving a line) and what happens when values
/// change, a button is tapped, or the form is submitted. One instance per run (a module): created when the person
/// opens the form, released when they leave it.
open class Operation {
    /// The host's services (accounts, bank directory, log, clock).
    public internal(set) var host: Host = Host(nil)

    public required init() {}

    /// The form, in order: `atoms = [srcAccount, destName, ...]`.
    open var atoms: [Atom] { [] }

    /// The run opened (the C `create`): `host` and the atoms reach the host now, so captions and values the form
    /// starts with (the signer's cards, today's date) are set here, not in `init()`.
    open func onOpen() {}

    /// A value was edited (`commit` false) or committed (`commit` true).
    open func onAtomValueChanged(_ sender: Atom, commit: Bool) {}

    /// A button without `submits` was tapped.
    open func onButtonTap(_ sender: Atom) {}

    /// The form passed validation: return the document's fields, in order. Throw `DocumentRefusal` to refuse.
    /// Well-known keys: from, account, bic, name, amount, currency, purpose. Atom values are refreshed from the host
    /// first, so a hidden atom reads as empty.
    open func document() throws(DocumentRefusal) -> [(key: String, value: String)] { [] }

    /// The operation whose instance pointer a C function received.
    public static func from(_ instance: UnsafeMutableRawPointer?) -> Self? {
        guard let instance else { return nil }
        return Unmanaged<InstanceContext>.fromOpaque(instance).takeUnretainedValue().operation as? Self
    }

    /// Gives every atom without an id the name of the property that holds it.
    func nameAtoms() {
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            for child in current.children {
                if let atom = child.value as? Atom, atom.id.isEmpty, let label = child.label {
                    atom.id = label.hasPrefix("_") ? String(label.dropFirst()) : label
                }
            }
            mirror = current.superclassMirror
        }
    }

    func atom(_ id: String) -> Atom? { atoms.first { $0.id == id } }
}

/// One run: the operation, and the host table and module it talks back through.
final class InstanceContext {
    let operation: Operation
    let host: UnsafePointer<rbs_host_t>
    let module: OpaquePointer

    init(operation: Operation, host: UnsafePointer<rbs_host_t>, module: OpaquePointer) {
        self.operation = operation
        self.host = host
        self.module = module
    }

    func setCaption(_ atom: String, _ caption: String) {
        _ = host.pointee.set_caption?(host, module, atom, caption)
    }

    func setValue(_ atom: String, _ value: AtomValue) {
        _ = value.withRaw { raw in host.pointee.set_value?(host, module, atom, raw) }
    }

    func setError(_ atom: String?, _ message: String?) {
        _ = host.pointee.set_error?(host, module, atom, message)
    }

    enum RunTextKind { case caption, error }

    /// A caption or mark in several languages: through `rbs.run-texts/1` when the host offers it, else the first
    /// text through `set_caption` / `set_error` (a host older than ABI 1.4).
    func setTexts(_ kind: RunTextKind, _ atom: String?, _ texts: KeyValuePairs<String, String>) {
        guard let first = texts.first else { return }
        guard let table = host.pointee.get_service?(host, RBS_SERVICE_RUN_TEXTS)?
            .assumingMemoryBound(to: rbs_run_texts_service_t.self).pointee else {
            if kind == .caption, let atom { setCaption(atom, first.value) } else { setError(atom, first.value) }
            return
        }
        // The C strings live until the call returns: the host copies what it keeps.
        let strings = texts.flatMap { [strdup($0.key), strdup($0.value)] }
        defer { strings.forEach { free($0) } }
        let variants = stride(from: 0, to: strings.count, by: 2).map {
            rbs_text_variant_t(language: UnsafePointer(strings[$0]), text: UnsafePointer(strings[$0 + 1]))
        }
        variants.withUnsafeBufferPointer { buffer in
            let count = UInt32(buffer.count)
            switch kind {
            case .caption:
                guard let atom else { return }
                _ = table.set_caption?(table.context, module, atom, count, buffer.baseAddress)
            case .error:
                _ = table.set_error?(table.context, module, atom, count, buffer.baseAddress)
            }
        }
    }

    /// Re-reads every atom's value from the host (hidden atoms read as empty).
    func refreshValues() {
        for atom in operation.atoms {
            var raw = rbs_value_t()
            if host.pointee.get_value?(host, module, atom.id, &raw) == true { atom.value = AtomValue(raw) }
        }
    }

    func setVisible(_ atom: String, _ visible: Bool) {
        _ = host.pointee.set_visible?(host, module, atom, visible)
    }
}

extension Operation {
    /// A BIC lookup: puts the bank's name from the host's directory into `info`, or empties it and marks
    /// `bic` when the directory does not know the BIC.
    /// - Returns: the bank, when found.
    @discardableResult
    public func showBank(for bic: Atom, in info: Atom) -> BankInfo? {
        if let bank = host.bank(bic: bic.stringValue) {
            info.caption = bank.name
            bic.setError(nil)
            return bank
        }
        info.caption = ""
        bic.setError(["en": "Unknown BIC \(bic.stringValue): check it against the payee's details",
                      "ru": "БИК \(bic.stringValue) нет в справочнике банков: сверьте его с реквизитами получателя"])
        return nil
    }
}
