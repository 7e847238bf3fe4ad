import CRBSPlugin
import Foundation
import RBSExpressions
import RBSLedger

/// One run of an operation (a module, seed 002): the plugin's instance and the form's values, visibility, captions
/// and error marks. Created when the person opens the operation; `close()` (or the last reference going away) frees
/// the plugin's instance — the module dies with its screen.
public final class FormSession {
    public let operation: RegisteredOperation
    private let locator: ServiceLocator
    private var model: FormModel
    private var captions: [String]
    /// A refused input or the plugin's mark, per atom.
    private var marks: [String?]
    private var formMark: String?
    /// The plugin's instance for this run, in-process or in a worker (see `PluginRuntime`).
    private var module: (any PluginModule)?
    /// What expressions hand to instance-bound plugin functions.
    private var instance: UnsafeMutableRawPointer? { module?.instance }
    public private(set) var isClosed = false
    /// Called once the module has ended and its instance is freed (the registry retires unused old versions).
    var onClose: (() -> Void)?

    private var descriptor: OperationDescriptor { operation.descriptor }

    /// Opens a run: creates the plugin's instance and computes the initial visibility.
    public init(operation: RegisteredOperation, locator: ServiceLocator) throws(FormSessionError) {
        self.operation = operation
        self.locator = locator
        let atoms = operation.descriptor.atoms
        let initial: [ExprValue] = atoms.map { $0.kind == .toggle ? .bool(false) : .null }
        do { model = try FormModel(slots: operation.compiled.slots, values: initial) } catch {
            throw .pluginFailed("\(operation.id): \(error)")
        }
        captions = atoms.map(\.caption)
        marks = Array(repeating: nil, count: atoms.count)
        do {
            module = try operation.plugin.runtime.open(operation: operation.id, control: self)
        } catch {
            isClosed = true
            throw error.endsModule ? .pluginFailed(error.description) : .createFailed(operation: operation.id)
        }
        operation.plugin.liveModules += 1
        model.recomputeAll(instance: instance)
        for (index, atom) in atoms.enumerated() {
            if let text = atom.defaultValue, atom.holdsValue { _ = try? commit(index: index, text: text) }
        }
    }

    deinit { close() }

    /// Frees the plugin's instance. Safe to call twice.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        module?.destroy()
        module = nil
        operation.plugin.liveModules -= 1
        onClose?()
        onClose = nil
    }

    // MARK: - Reading the form

    /// Every atom, in order, as a person sees it now.
    public var atoms: [AtomState] {
        descriptor.atoms.indices.map(state)
    }

    public func atom(_ id: String) -> AtomState? { index(of: id).map(state) }

    private func state(_ index: Int) -> AtomState {
        let atom = descriptor.atoms[index]
        let visible = model.isVisible(index)
        let value = display(model.values[index], atom)
        var error = marks[index]
        if error == nil, visible, !model.values[index].isNull, !model.isValid(index) {
            error = atom.errorText
        }
        return AtomState(descriptor: atom, caption: captions[index], visible: visible, value: value, error: error)
    }

    /// Whether atom `id`'s error can be fixed at the atom itself now: the plugin marked it, or its valid-if fails
    /// although every field the condition reads has a value (a condition still waiting for a later field — an
    /// account's key waiting for the BIC — is not final).
    public func errorIsFinal(_ id: String) -> Bool {
        guard let index = index(of: id), let state = atom(id), state.error != nil else { return false }
        if marks[index] != nil { return true }
        let reads = operation.compiled.slots[index].validIf?.reads ?? []
        return reads.allSatisfy { $0 == index || !model.effectiveValues[$0].isNull }
    }

    /// The form-level mark set by the plugin ("the accounts are in different currencies").
    public var formError: String? { formMark }

    /// Whether a submit would pass the host's checks (the plugin may still refuse in build_document).
    public var isReady: Bool { attention().isEmpty }

    /// The accounts an account picker offers now: the accounts service's list through the atom's filter.
    public func accounts(for id: String) -> [Account] {
        guard let index = index(of: id), descriptor.atoms[index].kind == .account else { return [] }
        let all = (try? locator.inject((any AccountsService).self).accounts()) ?? []
        guard let filter = operation.compiled.filters[index] else { return all }
        let form = model.effectiveValues
        return all.filter { account in
            let fields: [ExprValue] = [.string(account.number), .string(account.currency), .decimal(account.balance),
                                       .string(account.owner), .string(account.title), .bool(account.blocked)]
            return filter.test(fields + form, instance: nil)
        }
    }

    // MARK: - Changing the form

    /// Commits what a person typed into atom `id`: checks it against the atom's type, tells the plugin
    /// (value_changed with commit = true), then recomputes what depends on it.
    /// - Returns: the atoms that appeared or disappeared and the captions that changed.
    @discardableResult
    public func commit(_ id: String, text: String) throws(FormSessionError) -> FormAnnouncements {
        guard let index = index(of: id) else { throw .unknownAtom(id: id, operation: descriptor.id) }
        return try commit(index: index, text: text)
    }

    private func commit(index: Int, text: String) throws(FormSessionError) -> FormAnnouncements {
        guard !isClosed else { throw .closed }
        let atom = descriptor.atoms[index]
        guard atom.holdsValue else { throw .notEditable(id: atom.id, kind: atom.kind) }
        guard model.isVisible(index) else { throw .hidden(id: atom.id) }
        let value: ExprValue
        do { value = try parse(text, for: index) } catch {
            marks[index] = error.message
            throw .invalid(id: atom.id, message: error.message)
        }
        let before = snapshot()
        marks[index] = nil
        _ = model.set(index, to: value, instance: instance)
        if let module {
            let status: rbs_status_t?
            do { status = try module.valueChanged(atom: atom, value: value) } catch { throw end(error) }
            if status == rbs_status_t(RBS_FAILED) {
                operation.plugin.hostTable.log(.warning, "value_changed(\(atom.id)) failed")
            }
        }
        // The plugin's state may have changed what its functions answer: recompute the volatile expressions.
        _ = model.set(index, to: model.values[index], instance: instance)
        return announcements(since: before)
    }

    /// Hands the plugin's `value_changed` (commit = true) a TEXT value made of raw `bytes` — which need not be UTF-8
    /// and never pass the host's parsing — as `rbs-host plugin check` does to see that a plugin survives bad input at
    /// the boundary. The form's own state is not changed. Returns the plugin's status, or nil when the atom is unknown,
    /// the run is closed, or the plugin has no `value_changed`.
    func feedRaw(atom id: String, bytes: [UInt8]) -> rbs_status_t? {
        guard !isClosed, let module, index(of: id) != nil else { return nil }
        do { return try module.valueChangedRaw(atom: id, bytes: bytes) } catch {
            _ = end(error)
            return nil
        }
    }

    /// Hands the plugin's value_changed the atom's current value and nothing more (no parsing, no recompute): the
    /// boundary's round trip that rbs-bench measures, in-process or through a worker.
    package func valueChangedRoundTrip(_ id: String) throws(FormSessionError) -> Int32? {
        guard !isClosed, let module else { throw .closed }
        guard let index = index(of: id) else { throw .unknownAtom(id: id, operation: descriptor.id) }
        do { return try module.valueChanged(atom: descriptor.atoms[index], value: model.values[index]) } catch {
            throw end(error)
        }
    }

    /// Presses a button that does not submit: calls the plugin's action.
    @discardableResult
    public func press(_ id: String) throws(FormSessionError) -> FormAnnouncements {
        guard !isClosed else { throw .closed }
        guard let index = index(of: id) else { throw .unknownAtom(id: id, operation: descriptor.id) }
        guard descriptor.atoms[index].kind == .button else { throw .notAButton(id: id) }
        guard model.isVisible(index) else { throw .hidden(id: id) }
        let before = snapshot()
        if let module {
            let status: rbs_status_t?
            do { status = try module.action(atom: id) } catch { throw end(error) }
            if status == rbs_status_t(RBS_FAILED) {
                throw .pluginFailed("\(descriptor.id): the action of '\(id)' failed — see the log")
            }
        }
        _ = model.recomputeAll(instance: instance)
        return announcements(since: before)
    }

    /// Checks the form (every visible required atom has a value, every valid-if holds, nothing is marked), then
    /// asks the plugin to build the document. Hidden atoms never block a submit.
    public func submit() -> SubmitOutcome {
        guard !isClosed, let module else { return .failed(FormSessionError.closed.description) }
        let issues = attention()
        guard issues.isEmpty else { return .needsAttention(issues) }
        let built: BuiltDocument?
        do { built = try module.buildDocument() } catch { return .failed(end(error).description) }
        guard let built else { return .failed("the plugin has no build_document") }
        if let problem = built.problem { return .failed("\(descriptor.id): build_document: \(problem)") }
        switch built.status {
        case rbs_status_t(RBS_OK):
            return .ready(DocumentDraft(operation: descriptor.id, plugin: operation.plugin.id,
                                        pluginVersion: operation.plugin.version, fields: built.fields))
        case rbs_status_t(RBS_INVALID):
            let marked = attention()
            return .needsAttention(marked.isEmpty ? [AtomIssue(atom: nil, message: "the operation refused the document")] : marked)
        default:
            return .failed("\(descriptor.id): the plugin could not build the document — see the log")
        }
    }

    /// What needs attention before a submit.
    public func attention() -> [AtomIssue] {
        var issues: [AtomIssue] = []
        if let formMark { issues.append(AtomIssue(atom: nil, message: formMark)) }
        for (index, atom) in descriptor.atoms.enumerated() where model.isVisible(index) {
            if let mark = marks[index] {
                issues.append(AtomIssue(atom: atom.id, message: mark))
            } else if atom.holdsValue, !atom.isOptional, model.values[index].isNull {
                issues.append(AtomIssue(atom: atom.id, message: "required: \(captions[index])"))
            } else if !model.values[index].isNull, !model.isValid(index) {
                // An empty atom is judged by whether it is required, not by its valid-if.
                issues.append(AtomIssue(atom: atom.id, message: atom.errorText ?? "invalid"))
            }
        }
        return issues
    }

    // MARK: - Parsing what a person typed

    private func parse(_ text: String, for index: Int) throws(RefusedInput) -> ExprValue {
        let atom = descriptor.atoms[index]
        switch atom.kind {
        case .input:
            let type: RBSExpressions.InputType
            switch atom.inputType {
            case .text: type = .text
            case .digits: type = .digits
            case .number: type = .number
            case .amount: type = .amount(currency: atom.currency ?? "RUB")
            case .date: type = .date
            }
            let value: ExprValue
            do {
                value = try InputParser.parse(atom.inputType == .text ? text : text.trimmingCharacters(in: .whitespaces),
                                              as: type, minLength: atom.minLength > 0 ? atom.minLength : nil,
                                              maxLength: atom.maxLength > 0 ? atom.maxLength : nil)
            } catch { throw RefusedInput(message: error.description) }
            if atom.flags.contains(.capitalize), case .string(let string) = value { return .string(capitalized(string)) }
            return value
        case .enumeration:
            let wanted = text.trimmingCharacters(in: .whitespaces)
            if wanted.isEmpty { return .null }
            let options = atom.options
            let chosen = options.first { $0.value == wanted }
                ?? Int(wanted).flatMap { $0 >= 1 && $0 <= options.count ? options[$0 - 1] : nil }
                ?? options.first { $0.title.lowercased() == wanted.lowercased() }
            guard let chosen else {
                throw RefusedInput(message: "'\(wanted)' is not one of the options: " + options.enumerated()
                    .map { "\($0.offset + 1)) \($0.element.title) [\($0.element.value)]" }.joined(separator: ", "))
            }
            return CompiledOperation.valueType(of: atom) == .int ? .int(Int64(chosen.value) ?? 0) : .string(chosen.value)
        case .toggle:
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "yes", "y", "on", "true", "1", "да", "д": return .bool(true)
            case "no", "n", "off", "false", "0", "нет", "н", "": return .bool(false)
            default: throw RefusedInput(message: "'\(text)': answer yes or no")
            }
        case .account:
            let wanted = text.trimmingCharacters(in: .whitespaces)
            if wanted.isEmpty { return .null }
            let offered = accounts(for: atom.id)
            if let account = offered.first(where: { $0.number == wanted }) { return .string(account.number) }
            if let number = Int(wanted), number >= 1, number <= offered.count, wanted.count < 5 {
                return .string(offered[number - 1].number)
            }
            throw RefusedInput(message: offered.isEmpty ? "no account can be chosen here"
                : "'\(wanted)' is not one of the accounts offered: " + offered.map(\.number).joined(separator: ", "))
        case .text, .button:
            throw RefusedInput(message: "takes no value")
        }
    }

    private func capitalized(_ text: String) -> String {
        var result = ""
        var startOfSentence = true
        for character in text {
            if startOfSentence, character.isLetter {
                result += character.uppercased()
                startOfSentence = false
            } else {
                result.append(character)
                if ".!?".contains(character) { startOfSentence = true }
            }
        }
        return result
    }

    private func display(_ value: ExprValue, _ atom: AtomDescriptor) -> String {
        switch value {
        case .null: return ""
        case .bool(let flag): return flag ? "yes" : "no"
        case .int(let number): return String(number)
        case .string(let string): return string
        case .decimal(let decimal):
            if atom.inputType == .amount, let currency = atom.currency { return Amount.text(decimal, currency: currency) }
            return decimal.description
        }
    }

    // MARK: - Announcements

    private struct Snapshot {
        var visible: [Bool]
        var captions: [String]
    }

    private func snapshot() -> Snapshot {
        Snapshot(visible: descriptor.atoms.indices.map { model.isVisible($0) }, captions: captions)
    }

    private func announcements(since before: Snapshot) -> FormAnnouncements {
        var result = FormAnnouncements()
        for index in descriptor.atoms.indices {
            let visible = model.isVisible(index)
            if visible, !before.visible[index] { result.appeared.append(descriptor.atoms[index].id) }
            if !visible, before.visible[index] { result.disappeared.append(descriptor.atoms[index].id) }
            if captions[index] != before.captions[index] {
                result.captions.append((descriptor.atoms[index].id, captions[index]))
            }
        }
        return result
    }

    private func index(of id: String) -> Int? { operation.compiled.slotByID[id] }

    /// A fault of the plugin's runtime (its worker crashed, exited or hung): the run is over. The module is closed
    /// without calling into the plugin again, and the fault becomes the error the front end shows.
    private func end(_ fault: PluginFault) -> FormSessionError {
        if fault.endsModule { close() }
        return .pluginFailed(fault.description)
    }
}

// MARK: - What the plugin may do to its module

extension FormSession: ModuleControl {
    func pluginGetValue(atom id: String, arena: CStringArena) -> rbs_value_t? {
        guard let index = index(of: id) else { return nil }
        arena.reset()
        return CValue.make(model.effectiveValues[index], for: descriptor.atoms[index], arena: arena)
    }

    func pluginSetValue(atom id: String, value raw: rbs_value_t) -> Bool {
        guard let index = index(of: id), descriptor.atoms[index].holdsValue else { return false }
        switch CValue.text(of: raw) {
        case .failure(let error):
            operation.plugin.hostTable.log(.warning, "set_value(\(id)): \(error)")
            return false
        case .success(let text):
            guard let text else {
                _ = model.set(index, to: .null, instance: instance)
                return true
            }
            do {
                let value = try parse(text, for: index)
                _ = model.set(index, to: value, instance: instance)
                return true
            } catch {
                operation.plugin.hostTable.log(.warning, "set_value(\(id), \"\(text)\"): \(error.message)")
                return false
            }
        }
    }

    func pluginSetCaption(atom id: String, caption: String) -> Bool {
        guard let index = index(of: id) else { return false }
        captions[index] = caption
        return true
    }

    func pluginSetVisible(atom id: String, visible: Bool) -> Bool {
        guard let index = index(of: id), descriptor.atoms[index].showIf == nil else { return false }
        _ = model.setManualVisibility(index, visible, instance: instance)
        return true
    }

    func pluginSetError(atom id: String?, message: String?) -> Bool {
        guard let id else {
            formMark = message
            return true
        }
        guard let index = index(of: id) else { return false }
        marks[index] = message
        return true
    }
}

/// A value a person typed that the atom does not accept, and why.
struct RefusedInput: Error {
    var message: String
}
