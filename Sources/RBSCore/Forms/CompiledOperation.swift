import Foundation
import RBSExpressions

/// An operation's expressions, compiled once when its plugin loads: the form's slots (one per atom, in order) with
/// their show-if and valid-if, each account picker's filter, and the plugin functions bound through libffi.
public struct CompiledOperation: @unchecked Sendable {
    public private(set) var descriptor: OperationDescriptor
    /// One slot per atom, same order as `descriptor.atoms`.
    public let slots: [FormSlot]
    /// Account-picker filters by atom index, compiled over `AccountFilter.fields` followed by the form's atoms.
    public let filters: [Int: CompiledExpression]
    public let functions: [ForeignFunction]
    /// For a plugin in the host's process, its functions bound to their C addresses, by name: what a run's module
    /// calls (`InProcessModule`) once its `RunFunctions` has no answer kept. Empty for a plugin in workers.
    let direct: [String: ForeignFunction]
    /// Slot of each atom id.
    public let slotByID: [String: Int]
    /// The atoms whose committed value a run may hold and hand the plugin with its next call into the run instead
    /// of at once (`FormSession.commit`): those the plugin says its value_changed only records
    /// (`rbs.recorded-atoms/1`), when every function of the run declares what it reads (`rbs.function-reads/1`) and
    /// none reads the atom — so no answer the form uses can depend on whether the plugin heard of the value yet.
    /// Empty for a plugin that does not say.
    let recordedSlots: Set<Int>

    /// The value type an atom holds in expressions.
    static func valueType(of atom: AtomDescriptor) -> ValueType {
        switch atom.kind {
        case .toggle: return .bool
        case .enumeration:
            return atom.options.allSatisfy({ Int64($0.value) != nil }) ? .int : .string
        case .input:
            switch atom.inputType {
            case .number, .amount: return .decimal
            default: return .string
            }
        case .text, .button, .account: return .string
        }
    }

    /// The values an atom can ever hold beyond its type, so a comparison that can never be true is refused at load.
    static func domain(of atom: AtomDescriptor) -> FieldDomain? {
        switch atom.kind {
        case .enumeration: .options(atom.options.map(\.value))
        case .input where atom.inputType == .digits: .digits
        case .input where atom.inputType == .date: .date
        default: nil
        }
    }

    /// Compiles every expression of `descriptor`, binding its functions at `addresses`.
    /// - Throws: a `PluginProblem.expression` naming the operation, the atom and the expression.
    /// A function of the run (one that takes the instance) is bound to go through the run's ``RunFunctions``, which
    /// keeps its answers and calls the direct binding only when it has none current.
    init(_ descriptor: OperationDescriptor, addresses: [String: UnsafeMutableRawPointer]) throws(PluginProblem) {
        var direct: [String: ForeignFunction] = [:]
        try self.init(descriptor, direct: { direct }) { function throws(PluginProblem) in
            guard let address = addresses[function.name] else {
                throw .missingSymbol(location: "operation '\(descriptor.id)' function '\(function.name)'",
                                     symbol: function.symbol)
            }
            return { name, signature, bound throws(FFIError) in
                let called = try ForeignFunction(name: name, pointer: UnsafeRawPointer(address), signature: signature,
                                                 isInstanceBound: bound)
                direct[name] = called
                guard bound else { return called }
                return try ForeignFunction(name: name, signature: signature, isInstanceBound: true) { token, arguments in
                    RunFunctions.resolve(token)?.call(name, arguments) ?? .null
                }
            }
        }
    }

    /// How one declared function is bound: a libffi call of its address in this process, or a call forwarded to a
    /// plugin worker (see `WorkerRuntime`).
    typealias Binder = (_ name: String, _ signature: String, _ instanceBound: Bool) throws(FFIError) -> ForeignFunction

    /// Compiles every expression of `descriptor`, binding each function with what `binder` gives for it.
    /// - Parameter direct: the in-process bindings the binder made, read once every function is bound.
    init(_ descriptor: OperationDescriptor, direct: () -> [String: ForeignFunction] = { [:] },
         binder: (FunctionDescriptor) throws(PluginProblem) -> Binder) throws(PluginProblem) {
        self.descriptor = descriptor
        let here = "operation '\(descriptor.id)'"
        var functions: [ForeignFunction] = []
        for function in descriptor.functions {
            let bind = try binder(function)
            do {
                functions.append(try bind(function.name, function.signature, function.takesInstance))
            } catch {
                throw .expression(location: "\(here) function '\(function.name)'",
                                  issue: "signature \"\(function.signature)\": \(error) — use RESULT(ARG, ...) with int64, double, bool, string")
            }
        }
        var scope = ExpressionScope()
        var slotByID: [String: Int] = [:]
        for (index, atom) in descriptor.atoms.enumerated() {
            scope.declareField(atom.id, slot: index, type: Self.valueType(of: atom), domain: Self.domain(of: atom))
            slotByID[atom.id] = index
        }
        for function in functions { scope.declareFunction(function) }

        func compile(_ source: String?, _ field: String, atom: AtomDescriptor,
                     in scope: ExpressionScope) throws(PluginProblem) -> CompiledExpression? {
            guard let source else { return nil }
            do {
                return try CompiledExpression.compile(source, in: scope, expecting: .bool)
            } catch {
                // Quoted up to 120 characters: a 60-KB expression was echoed whole on one line at every start.
                let shown = source.count > 120 ? "\(source.prefix(120))… (\(source.utf8.count) bytes)" : source
                throw .expression(location: "\(here) atom '\(atom.id)' \(field) \"\(shown)\"",
                                  issue: "\(error) — fix the expression")
            }
        }

        var filterScope = ExpressionScope()
        for (index, field) in AccountFilter.fields.enumerated() {
            filterScope.declareField(field.name, slot: index, type: field.type)
        }
        for (index, atom) in descriptor.atoms.enumerated() where AccountFilter.field(named: atom.id) == nil {
            filterScope.declareField(atom.id, slot: AccountFilter.fields.count + index, type: Self.valueType(of: atom),
                                     domain: Self.domain(of: atom))
        }
        for function in functions where !function.isInstanceBound { filterScope.declareFunction(function) }

        var slots: [FormSlot] = []
        var filters: [Int: CompiledExpression] = [:]
        for (index, atom) in descriptor.atoms.enumerated() {
            let showIf = try compile(atom.showIf, "show_if", atom: atom, in: scope)
            let validIf = try compile(atom.validIf, "valid_if", atom: atom, in: scope)
            if let filter = try compile(atom.filter, "filter", atom: atom, in: filterScope) { filters[index] = filter }
            slots.append(FormSlot(name: atom.id, type: Self.valueType(of: atom), showIf: showIf, validIf: validIf))
        }
        do {
            _ = try FormModel(slots: slots)
        } catch {
            throw .expression(location: here, issue: "\(error) — break the cycle of show_if expressions")
        }
        self.slots = slots
        self.filters = filters
        self.functions = functions
        self.direct = direct()
        self.slotByID = slotByID
        let everyFunctionDeclares = descriptor.functions.allSatisfy { !$0.takesInstance || $0.reads != nil }
        let read = Set(descriptor.functions.flatMap { $0.reads ?? [] })
        recordedSlots = everyFunctionDeclares
            ? Set(descriptor.recordedAtoms.filter { !read.contains($0) }.compactMap { slotByID[$0] }) : []
    }
}

/// The fields an account-picker filter reads, before the form's own atoms.
enum AccountFilter {
    static let fields: [(name: String, type: ValueType)] = [
        ("number", .string), ("currency", .string), ("balance", .decimal), ("owner", .string), ("title", .string),
        ("blocked", .bool),
    ]

    static func field(named name: String) -> Int? { fields.firstIndex { $0.name == name } }
}

extension CompiledOperation {
    /// The same compiled operation described by `descriptor` (its texts in another language: ids and expressions
    /// are the same, so nothing is compiled again).
    func with(descriptor: OperationDescriptor) -> CompiledOperation {
        var copy = self
        copy.descriptor = descriptor
        return copy
    }
}
