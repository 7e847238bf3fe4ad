import CRBSPlugin
import Foundation
import RBSExpressions
import RBSLedger
import RBSMoney

/// One run of an operation (a module, seed 002): the plugin's instance and the form's values, visibility, captions
/// and error marks. Created when the person opens the operation; `close()` (or the last reference going away) frees
/// the plugin's instance — the module dies with its screen.
public final class FormSession {
    /// The operation as a reader of ``language`` sees it (its plugin's `rbs.texts/1` translations applied).
    public private(set) var operation: RegisteredOperation
    /// The operation as its plugin declares it, before any translation.
    private let declared: RegisteredOperation
    /// The atoms whose caption the plugin set at run time (host->set_caption): shown as the plugin set them, whatever
    /// the language.
    private var captionsSetByPlugin = Set<Int>()
    /// The captions and marks the plugin set with a variant per language (rbs.run-texts/1), by atom index (the
    /// form's mark under nil): ``captions`` and ``marks`` hold the variant of ``language``, chosen again when it
    /// changes.
    private var captionTexts: [Int: RunText] = [:]
    private var markTexts: [Int?: RunText] = [:]
    private let locator: ServiceLocator
    private var model: FormModel
    private var captions: [String]
    /// A refused input or the plugin's mark, per atom.
    private var marks: [String?]
    private var formMark: String?
    /// The plugin's instance for this run, in-process or in a worker (see `PluginRuntime`).
    private(set) var module: (any PluginModule)?
    /// The answers of this run's plugin functions, kept until they may have changed.
    let functions: RunFunctions
    /// What expressions hand to the plugin's functions: this run's ``functions`` while the module lives.
    private var instance: UnsafeMutableRawPointer? { module == nil ? nil : functions.token }
    public private(set) var isClosed = false
    /// Why the plugin's runtime ended this run (its worker crashed, exited or hung), or nil: a run ended so is never
    /// ready, and every front end says why from ``attention()``.
    public var fault: String? { endedBy.map { HostMessage.describe($0, language) } }
    /// The fault that ended this run, as typed facts.
    public private(set) var endedBy: PluginFault?
    /// The language of the messages this run makes for people (refused values, what a submit needs); the front
    /// end sets it, and the texts of the plugin (title, captions, hints, option titles, labels) follow it when the
    /// plugin translates them (`rbs.texts/1`). Machine output keeps its keys whatever it is.
    public var language: HostLanguage = .en {
        didSet {
            guard language != oldValue else { return }
            revision += 1
            operation = declared.localized(language)
            for (index, atom) in operation.descriptor.atoms.enumerated() where !captionsSetByPlugin.contains(index) {
                captions[index] = atom.caption
            }
            for (index, text) in captionTexts { captions[index] = text.text(for: language) }
            for (index, text) in markTexts {
                if let index { marks[index] = text.text(for: language) } else { formMark = text.text(for: language) }
            }
        }
    }
    /// Counts the changes to what the form shows (values, visibility, captions, marks, language, the run's end): a
    /// front end that kept what it rendered at one revision may reuse it while the revision is the same
    /// (``keptRendering``).
    public private(set) var revision = 0

    /// The revision a rendering of the form made now stays good for, or nil when the rendering may change without
    /// the form changing: an account picker whose accounts could not be read asks for them again at every render.
    public var keptRendering: Int? {
        cachedAccounts == nil && descriptor.atoms.contains(where: { $0.kind == .account }) ? nil : revision
    }

    /// Called once the module has ended and its instance is freed (the registry retires unused old versions).
    var onClose: (() -> Void)?

    private var descriptor: OperationDescriptor { operation.descriptor }

    /// The value of atom `id`'s option whose title, in any language the plugin writes it (declared or translated),
    /// is `wanted` (lowercased) or the only one that starts with it; nil when none or several.
    func optionValue(titledInAnyLanguage wanted: String, atom id: String) -> String? {
        let declaredAtom = declared.descriptor.atoms.first { $0.id == id }
        var titles = declaredAtom?.options.map { (value: $0.value, title: $0.title.lowercased()) } ?? []
        for texts in declared.descriptor.texts.values {
            titles += (texts.options[id] ?? [:]).map { (value: $0.key, title: $0.value.lowercased()) }
        }
        let exact = Set(titles.filter { $0.title == wanted }.map(\.value))
        if exact.count == 1 { return exact.first }
        let starting = Set(titles.filter { $0.title.hasPrefix(wanted) }.map(\.value))
        return exact.isEmpty && starting.count == 1 ? starting.first : nil
    }

    /// Opens a run: creates the plugin's instance and computes the initial visibility.
    /// - Parameter placement: where the run was placed (`Runtime.place(_:)`), if it was: its plugin instance is
    ///   created there.
    public init(operation: RegisteredOperation, locator: ServiceLocator, placement: PluginPlacement? = nil) throws(FormSessionError) {
        // In the default language until the front end sets the person's: the same texts every front end starts from.
        self.operation = operation.localized(.en)
        self.declared = operation
        self.locator = locator
        let atoms = self.operation.descriptor.atoms
        let initial: [ExprValue] = atoms.map { $0.kind == .toggle ? .bool(false) : .null }
        do { model = try FormModel(slots: operation.compiled.slots, values: initial) } catch {
            throw .pluginFailed("\(operation.id): \(error)")
        }
        captions = atoms.map(\.caption)
        marks = Array(repeating: nil, count: atoms.count)
        functions = RunFunctions(operation: operation.compiled, values: initial)
        do {
            module = try operation.plugin.runtime.open(operation: operation.id, control: self, placement: placement)
            functions.module = module
        } catch {
            isClosed = true
            throw error.endsModule ? .pluginFault(error) : .createFailed(operation: operation.id)
        }
        operation.plugin.liveModules += 1
        model.recomputeAll(instance: instance)
        for (index, atom) in atoms.enumerated() {
            guard let text = atom.defaultValue, atom.holdsValue,
                  let value = try? FormInput.value(text, for: atom, in: self, reader: .script) else { continue }
            _ = try? commit(index: index, value: value)
        }
    }

    deinit { close() }

    /// Frees the plugin's instance. Safe to call twice.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        revision += 1
        // A value held for the plugin dies with the run: its value_changed would only have recorded it.
        held = []
        module?.destroy()
        module = nil
        functions.module = nil
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

    /// What tells a form from another of the same operation, on one line, from its `atoms` (as ``atoms`` gives them,
    /// which the front end has just rendered): its amounts, then the first text or digits typed (a payee, a purpose, a
    /// phone number; not a "0"), as the review writes them ("1,500.00 RUB · ООО Ромашка"); nil while nothing is filled
    /// in. A list of open forms (the web client's "Continue") names each by it.
    public static func summary(of atoms: [AtomState], language: HostLanguage) -> String? {
        var amounts: [String] = []
        var text: String?, digits: String?
        for atom in atoms {
            let declared = atom.descriptor
            guard atom.visible, !atom.value.isEmpty, atom.kind == .input, !declared.flags.contains(.secret) else { continue }
            if declared.inputType == .amount {
                amounts.append(Amount.shown(atom.value, currency: declared.currency ?? "RUB", language))
            } else if atom.value != "0" {
                // A payee or a purpose first, else a number typed (a phone); a "0" (a budget field's none) says nothing.
                if text == nil, declared.inputType == .text { text = DocumentPresentation.oneLine(atom.value) }
                if digits == nil, declared.inputType == .digits { digits = atom.value }
            }
        }
        text = text ?? digits
        let parts = amounts + (text.map { [$0.count > 60 ? String($0.prefix(59)) + "…" : $0] } ?? [])
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// Atom `id`'s declaration as the form reads its values now: an amount that takes the currency of the account
    /// chosen in another field (`rbs.amount-currency/1`) names that account's currency. What a front end parses typed
    /// text by.
    public func declaration(of id: String) -> AtomDescriptor? { index(of: id).map(effective) }

    private func state(_ index: Int) -> AtomState {
        let atom = effective(index)
        let visible = model.isVisible(index)
        let value = display(model.values[index], atom, at: index)
        var error = visible ? mark(at: index) : nil
        // A failing valid-if speaks once every field it reads has a value (a key check waiting for the BIC does not),
        // a toggle's once it was answered.
        if error == nil, visible, !model.values[index].isNull, !model.isValid(index), validIfIsComplete(index),
           atom.kind != .toggle || answeredToggles.contains(index) {
            error = atom.errorText ?? HostMessage.notValid(captions[index]).text(language)
        }
        return AtomState(descriptor: atom, caption: captions[index], visible: visible, value: value, error: error)
    }

    /// Whether every field atom `index`'s valid-if reads (other than itself) has a value.
    private func validIfIsComplete(_ index: Int) -> Bool {
        let reads = operation.compiled.slots[index].validIf?.reads ?? []
        return reads.allSatisfy { $0 == index || !model.effectiveValues[$0].isNull }
    }

    /// The form-level mark set by the plugin ("the accounts are in different currencies").
    public var formError: String? { formMark }

    /// Whether a submit would pass the host's checks (the plugin may still refuse in build_document).
    public var isReady: Bool { attention().isEmpty }

    /// The customer's accounts as this run numbers them: read once, when a picker first needs them, and kept for
    /// the whole run, so list number N names the same account in every picker of the form whatever was chosen
    /// before (a picker that leaves an account out skips its number; it never renumbers the rest).
    /// When they cannot be read (the database is unreachable), the list is empty, ``accountsUnavailable`` says why,
    /// and the next picker asks again.
    public var accountList: [Account] {
        if let cachedAccounts { return cachedAccounts }
        do {
            let all = try locator.inject((any AccountsService).self).accounts()
            cachedAccounts = all
            accountsUnavailable = nil
            return all
        } catch {
            accountsUnavailable = String(describing: error)
            return []
        }
    }

    private var cachedAccounts: [Account]?

    /// Why the accounts could not be read when a picker last asked for them (nil: they were read).
    public private(set) var accountsUnavailable: String?

    /// What a picker that offers no account says: why the accounts cannot be read, or that none can be chosen here.
    public var noAccountMessage: String {
        (accountsUnavailable.map { HostMessage.accountsUnavailable($0) } ?? HostMessage.noAccountHere).text(language)
    }

    /// The accounts an account picker offers now (those the core takes postings on, through the atom's filter), each with its
    /// number in ``accountList`` (1-based): the number a person may type for it.
    public func offeredAccounts(for id: String) -> [(number: Int, account: Account)] {
        guard let index = index(of: id), descriptor.atoms[index].kind == .account else { return [] }
        let filter = operation.compiled.filters[index]
        let form = model.effectiveValues
        let accounts = accountList
        // The list is kept for the run once read, and a filter calls no instance-bound function: what a picker offers
        // changes only when an atom its filter reads does (the server renders the form before and after every commit).
        let read = Self.formReads(of: filter).map { form[$0] }
        if cachedAccounts != nil, let memo = offeredMemo[index], memo.read.count == read.count,
           zip(memo.read, read).allSatisfy(Self.same) {
            return memo.offered
        }
        let offered: [(number: Int, account: Account)] = accounts.enumerated().compactMap { position, account in
            // The core refuses any posting to or from a blocked account: no picker offers one, whatever its filter.
            guard account.acceptsPostings else { return nil }
            if let filter {
                let fields: [ExprValue] = [.string(account.number), .string(account.currency), .decimal(account.balance.amount),
                                           .string(account.owner), .string(account.title), .bool(account.blocked)]
                guard filter.test(fields + form, instance: nil) else { return nil }
            }
            return (position + 1, account)
        }
        if cachedAccounts != nil, filter?.isVolatile != true { offeredMemo[index] = (read, offered) }
        return offered
    }

    /// What each account picker offered, with the values of the atoms its filter read then (``offeredAccounts(for:)``).
    private var offeredMemo: [Int: (read: [ExprValue], offered: [(number: Int, account: Account)])] = [:]

    /// The form's slots `filter` reads (its first ``AccountFilter`` fields are the account's own).
    private static func formReads(of filter: CompiledExpression?) -> [Int] {
        (filter?.reads ?? []).compactMap { $0 >= AccountFilter.fields.count ? $0 - AccountFilter.fields.count : nil }
    }

    /// The same value as a filter sees it: `==` of ``ExprValue`` takes 1 and 1.00, or two spellings of é, as equal,
    /// which an expression's text functions do not.
    private static func same(_ a: ExprValue, _ b: ExprValue) -> Bool {
        switch (a, b) {
        case (.decimal(let x), .decimal(let y)): x == y && x.exponent == y.exponent
        case (.string(let x), .string(let y)): x.utf8.elementsEqual(y.utf8)
        default: a == b
        }
    }

    /// The accounts an account picker offers now, in list order.
    public func accounts(for id: String) -> [Account] { offeredAccounts(for: id).map(\.account) }

    // MARK: - Changing the form

    /// Commits a typed value to atom `id`: checks it against the atom's kind, type, currency and limits (a mismatch
    /// is refused and the atom keeps its value and leaves no error behind), tells the plugin (value_changed with
    /// commit = true), then recomputes what depends on it. Turning typed text into a value is the front end's job
    /// (``FormInput``).
    /// - Returns: what changed that a person should be told: atoms that appeared or disappeared, text captions
    ///   that changed, errors that became final or went away — taken from the form model's own change set.
    @discardableResult
    public func commit(_ id: String, value: AtomValue) throws(FormSessionError) -> FormAnnouncements {
        guard let index = index(of: id) else { throw .unknownAtom(id: id, operation: descriptor.id) }
        return try commit(index: index, value: value)
    }

    private func commit(index: Int, value typed: AtomValue) throws(FormSessionError) -> FormAnnouncements {
        guard !isClosed else { throw .closed }
        let atom = effective(index)
        guard atom.holdsValue else { throw .notEditable(id: atom.id, kind: atom.kind) }
        guard model.isVisible(index) else { throw .hidden(id: atom.id) }
        let value = try check(typed, for: index)
        // The amounts whose currency this commit may change (rbs.amount-currency/1), with their currency before it.
        // (nil when no account was chosen yet: the amount was then read in the declared currency, not in one chosen.)
        let accountChosen: Bool
        if case .string = model.effectiveValues[index] { accountChosen = true } else { accountChosen = false }
        let followers = followingAmounts(index).map { ($0, accountChosen ? effective($0).currency : nil) }
        var failure: FormSessionError?
        if atom.kind == .toggle { answeredToggles.insert(index) }
        let result = recording(committed: index) {
            marks[index] = nil
            markTexts[index] = nil
            currencyNotices[index] = nil
            // The plugin has not heard of the value yet: its functions' answers are the ones kept (RunFunctions).
            apply(model.set(index, to: value, instance: instance))
            if let module {
                if operation.compiled.recordedSlots.contains(index) {
                    // The plugin's value_changed only records this atom's value and no function the form uses reads
                    // it (rbs.recorded-atoms/1): the plugin hears of it with the run's next call into it, and nothing
                    // it could answer or set has changed, so there is nothing to recompute (issue #33).
                    hold(index, value)
                    return
                }
                // value_changed (after those of the values held), and the function calls it makes stale, go to the
                // plugin together: through a worker, one round trip (issue #33).
                functions.told[index] = value
                let changes = takeHeld() + [ValueChange(atom: atom, value: value)]
                let calls = functions.enteringPlugin()
                let reply: CommitReply
                do throws(PluginFault) { reply = try module.commit(changes, calls: calls) } catch {
                    failure = end(error)
                    return
                }
                functions.store(calls, results: reply.results)
                warnFailed(changes, reply.statuses)
            }
            // The plugin's state may have changed what its functions answer: recompute the volatile expressions
            // (their answers are those the commit brought back).
            apply(model.set(index, to: model.values[index], instance: instance))
            if failure == nil { clearAmounts(followers) }
        }
        if let failure { throw failure }
        return result
    }

    // MARK: - An amount in the chosen account's currency (rbs.amount-currency/1)

    /// Atom `index` as the form reads, checks, shows and hands it to the plugin now: an amount that takes the
    /// currency of the account chosen in another field in that account's currency (the declared one while none is
    /// chosen there); every other atom as declared.
    private func effective(_ index: Int) -> AtomDescriptor {
        var atom = descriptor.atoms[index]
        guard let accountID = atom.currencyOfAccount, let account = self.index(of: accountID),
              case .string(let number) = model.effectiveValues[account],
              let chosen = accountList.first(where: { $0.number == number }) else { return atom }
        atom.currency = chosen.currency
        return atom
    }

    /// The amount atoms that take the currency of the account chosen in atom `index`.
    private func followingAmounts(_ index: Int) -> [Int] {
        guard descriptor.atoms[index].kind == .account else { return [] }
        let id = descriptor.atoms[index].id
        return descriptor.atoms.indices.filter { descriptor.atoms[$0].currencyOfAccount == id }
    }

    /// Clears each amount of `amounts` whose currency is no longer the one it was entered in, and marks it so: a
    /// number typed for one currency is never carried over into another (the plugin hears of the empty value).
    private func clearAmounts(_ amounts: [(index: Int, currency: String?)]) {
        for (index, before) in amounts where !model.values[index].isNull {
            let now = effective(index).currency
            guard now != before else { continue }
            // Inside the account's commit: its recording takes this one's changes in (a hidden amount keeps its value).
            do throws(FormSessionError) { _ = try commit(index: index, value: .empty) } catch { continue }
            currencyNotices[index] = RunText(before == nil && now != nil
                ? .amountBeforeAccount(currency: now ?? "")
                : .amountCurrencyChanged(from: before ?? "", to: now ?? ""))
            pending?.judged.insert(index)
        }
    }

    /// Why an amount is empty when its account changed currency (``clearAmounts(_:)``), until a value is committed to
    /// it: kept apart from the plugin's marks, which a plugin clears as it re-checks its form.
    private var currencyNotices: [Int: RunText] = [:]

    /// The toggles a value was committed to in this run. A toggle starts off, which is a value: until someone turns it
    /// (or answers it off), it is unanswered as an empty field is, and its valid-if waits for the submit to speak
    /// (``attention()`` lists it), so a fresh form does not open on an error.
    private var answeredToggles: Set<Int> = []

    /// What atom `index` is marked with: a refused input or the plugin's mark, else the host's currency notice.
    private func mark(at index: Int) -> String? { marks[index] ?? currencyNotices[index]?.text(for: language) }

    /// The values committed to atoms the plugin only records (``CompiledOperation/recordedSlots``) that it has not
    /// been told yet, in the order first committed, each with the last value committed to it.
    private var held: [(index: Int, value: ExprValue)] = []

    private func hold(_ index: Int, _ value: ExprValue) {
        if let at = held.firstIndex(where: { $0.index == index }) { held[at].value = value } else { held.append((index, value)) }
    }

    /// The held values as value_changed calls, to go first in the message of the call about to be made into the run;
    /// from here on the plugin counts as told.
    private func takeHeld() -> [ValueChange] {
        defer { held = [] }
        return held.map { index, value in
            functions.told[index] = value
            return ValueChange(atom: effective(index), value: value)
        }
    }

    /// Tells the plugin the held values before a call into the run that is not a commit (action, build_document, a
    /// raw value): one round trip, made only when a value is held.
    private func tellHeld(_ module: any PluginModule) throws(PluginFault) {
        guard !held.isEmpty else { return }
        let changes = takeHeld()
        warnFailed(changes, try module.commit(changes, calls: []).statuses)
    }

    private func warnFailed(_ changes: [ValueChange], _ statuses: [rbs_status_t?]) {
        for (change, status) in zip(changes, statuses) where status == rbs_status_t(RBS_FAILED) {
            operation.plugin.hostTable.log(.warning, "value_changed(\(change.atom.id)) failed")
        }
    }

    /// Checks a typed value against atom `index`'s declaration and converts it to the model's value.
    private func check(_ value: AtomValue, for index: Int) throws(FormSessionError) -> ExprValue {
        let atom = effective(index)
        func mismatch() -> FormSessionError {
            .mismatch(id: atom.id, expected: Self.expected(atom), got: value.kindName)
        }
        if case .empty = value { return atom.kind == .toggle ? .bool(false) : .null }
        switch atom.kind {
        case .input:
            switch (atom.inputType, value) {
            case (.text, .text(let typed)), (.digits, .text(let typed)):
                // The spaces around a text are never part of it, and a text of spaces alone is no text: a required
                // payee name or purpose of blanks is missing, whichever front end sent it (the REPL skipped such a
                // line while `run --set` and the API posted it).
                let text = typed.trimmed
                if text.isEmpty { return .null }
                if let control = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                    throw .invalid(id: atom.id, message: HostMessage.controlCharacter(control.value).text(language))
                }
                // A bidirectional control or another invisible format character: what is shown would not be what is signed.
                if let invisible = InvisibleText.first(in: text) {
                    throw .invalid(id: atom.id, message: HostMessage.invisibleCharacter(caption: captions[index], invisible).text(language))
                }
                let length = text.count
                let maximum = atom.maxLength > 0 ? atom.maxLength : TextLimits.defaultMaximumCharacters
                if atom.minLength > 0, length < atom.minLength {
                    throw .invalid(id: atom.id, message: HostMessage.tooShort(length: length, minimum: atom.minLength).text(language))
                }
                if length > maximum {
                    throw .invalid(id: atom.id, message: HostMessage.tooLong(length: length, maximum: maximum).text(language))
                }
                if atom.inputType == .digits, let bad = text.enumerated().first(where: { !($0.element.isASCII && $0.element.isNumber) }) {
                    throw .invalid(id: atom.id, message: HostMessage.digitsOnly(bad.element, position: bad.offset + 1).text(language))
                }
                let string = atom.flags.contains(.capitalize) ? capitalized(text) : text
                return .string(string)
            case (.number, .number(let number)):
                return .decimal(number)
            case (.amount, .money(let amount, let currency)):
                let expected = atom.currency ?? "RUB"
                guard currency.uppercased() == expected.uppercased() else {
                    throw .mismatch(id: atom.id, expected: "an amount in \(expected)", got: "an amount in \(currency)")
                }
                guard amount > 0 else { throw .invalid(id: atom.id, message: HostMessage.amountNotPositive.text(language)) }
                if let code = Currency(code: expected) {
                    do throws(MoneyError) { _ = try Money(amount, currency: code) } catch {
                        throw .invalid(id: atom.id, message: error.description)
                    }
                }
                return .decimal(amount)
            case (.date, .date(let year, let month, let day)):
                do throws(CalendarDayError) {
                    return .string(try CalendarDay(year: year, month: month, day: day).iso)
                } catch {
                    let text = AtomValue.iso(year: year, month: month, day: day)
                    if case .noSuchDay = error {
                        throw .invalid(id: atom.id, message: HostMessage.noSuchDay(date: text, day: day, month: month, year: year).text(language))
                    }
                    throw .invalid(id: atom.id, message: HostMessage.noSuchMonth(date: text, month: month).text(language))
                }
            default:
                throw mismatch()
            }
        case .enumeration:
            guard case .option(let wanted) = value else { throw mismatch() }
            guard let chosen = atom.options.first(where: { $0.value == wanted }) else {
                throw .invalid(id: atom.id, message: "'\(wanted)' is not one of the options: "
                    + atom.options.map { "\($0.value) (\($0.title))" }.joined(separator: ", "))
            }
            return CompiledOperation.valueType(of: atom) == .int ? .int(Int64(chosen.value) ?? 0) : .string(chosen.value)
        case .toggle:
            guard case .toggle(let flag) = value else { throw mismatch() }
            return .bool(flag)
        case .account:
            guard case .account(let number) = value else { throw mismatch() }
            let offered = accounts(for: atom.id)
            guard offered.contains(where: { $0.number == number }) else {
                throw .invalid(id: atom.id, message: offered.isEmpty ? noAccountMessage
                    : "account \(number) is not one of the accounts offered here: " + offered.map(\.number).joined(separator: ", "))
            }
            return .string(number)
        case .text, .button:
            throw .notEditable(id: atom.id, kind: atom.kind)
        }
    }

    /// What atom `atom` takes, for messages.
    static func expected(_ atom: AtomDescriptor) -> String {
        switch atom.kind {
        case .input:
            switch atom.inputType {
            case .text: "text"
            case .digits: "digits"
            case .number: "a number"
            case .amount: "an amount in \(atom.currency ?? "RUB")"
            case .date: "a date"
            }
        case .enumeration: "an enum option"
        case .toggle: "a yes/no value"
        case .account: "an account"
        case .text, .button: "no value"
        }
    }

    /// Hands the plugin's `value_changed` (commit = true) a TEXT value made of raw `bytes` — which need not be UTF-8
    /// and never pass the host's parsing — as `rbs-host plugin check` does to see that a plugin survives bad input at
    /// the boundary. The form's own state is not changed. Returns the plugin's status, or nil when the atom is unknown,
    /// the run is closed, or the plugin has no `value_changed`.
    func feedRaw(atom id: String, bytes: [UInt8]) -> rbs_status_t? {
        guard !isClosed, let module, index(of: id) != nil else { return nil }
        functions.enteringPlugin()
        do {
            try tellHeld(module)
            return try module.valueChangedRaw(atom: id, bytes: bytes)
        } catch {
            _ = end(error)
            return nil
        }
    }

    /// Hands the plugin's value_changed the atom's current value and nothing more (no parsing, no recompute): the
    /// boundary's round trip that rbs-bench measures, in-process or through a worker.
    package func valueChangedRoundTrip(_ id: String) throws(FormSessionError) -> Int32? {
        guard !isClosed, let module else { throw .closed }
        guard let index = index(of: id) else { throw .unknownAtom(id: id, operation: descriptor.id) }
        functions.enteringPlugin()
        do {
            try tellHeld(module)
            return try module.valueChanged(atom: effective(index), value: model.values[index])
        } catch {
            throw end(error)
        }
    }

    /// What value_changed did with one value, seen from the host (``valueChangedAtOnce(_:text:)``).
    struct AtOnce {
        /// The plugin's status (nil: it has no value_changed).
        var status: rbs_status_t?
        /// The calls it made into the host meanwhile, in order (``HostCallbackTap``).
        var calls: [String]
        /// What a person would see changed after it: "fee's caption 'Fee' → 'Fee 1.00'".
        var changes: [String]
    }

    /// Hands the plugin's value_changed (commit = true) the value `text` stands for in atom `id`, at once — never held
    /// as a commit to an atom listed in rbs.recorded-atoms/1 is — and reports what the plugin did meanwhile: `plugin
    /// check` holds such an atom to its promise of only recording the value. The form's own values stay as they were,
    /// so whatever changed in what a person sees was the plugin's doing.
    /// - Throws: a value the host would refuse (``FormSessionError/invalid(id:message:)`` and the like: no plugin
    ///   ever sees it), a closed run, or the plugin's fault.
    func valueChangedAtOnce(_ id: String, text: String) throws(FormSessionError) -> AtOnce {
        guard !isClosed, let module else { throw .closed }
        guard let index = index(of: id) else { throw .unknownAtom(id: id, operation: descriptor.id) }
        let atom = effective(index)
        let value = try check(try FormInput.value(text, for: atom, in: self, reader: .script), for: index)
        functions.enteringPlugin()
        do throws(PluginFault) { try tellHeld(module) } catch { throw end(error) }
        let before = (atoms, formMark)
        let seen: (result: rbs_status_t?, calls: [String])
        do throws(PluginFault) {
            seen = try HostCallbackTap.record { () throws(PluginFault) in try module.valueChanged(atom: atom, value: value) }
        } catch {
            throw end(error)
        }
        return AtOnce(status: seen.result, calls: seen.calls, changes: Self.changes(from: before, to: (atoms, formMark)))
    }

    /// The differences a person would see between two moments of the form: each atom's value, caption, visibility
    /// and mark, and the form's own mark.
    private static func changes(from before: ([AtomState], String?), to after: ([AtomState], String?)) -> [String] {
        func quoted(_ text: String?) -> String { text.map { "'\($0)'" } ?? "none" }
        var changes: [String] = []
        for (old, new) in zip(before.0, after.0) {
            if old.value != new.value { changes.append("\(old.id)'s value \(quoted(old.value)) → \(quoted(new.value))") }
            if old.caption != new.caption { changes.append("\(old.id)'s caption \(quoted(old.caption)) → \(quoted(new.caption))") }
            if old.visible != new.visible { changes.append("\(old.id) \(new.visible ? "shown" : "hidden")") }
            if old.error != new.error { changes.append("\(old.id)'s error \(quoted(old.error)) → \(quoted(new.error))") }
        }
        if before.1 != after.1 { changes.append("the form's error \(quoted(before.1)) → \(quoted(after.1))") }
        return changes
    }

    /// Presses a button that does not submit: calls the plugin's action.
    @discardableResult
    public func press(_ id: String) throws(FormSessionError) -> FormAnnouncements {
        guard !isClosed else { throw .closed }
        guard let index = index(of: id) else { throw .unknownAtom(id: id, operation: descriptor.id) }
        guard descriptor.atoms[index].kind == .button else { throw .notAButton(id: id) }
        guard model.isVisible(index) else { throw .hidden(id: id) }
        var failed = false
        var failure: FormSessionError?
        let result = recording {
            if let module {
                functions.enteringPlugin()
                do throws(PluginFault) {
                    try tellHeld(module)
                    failed = try module.action(atom: id) == rbs_status_t(RBS_FAILED)
                } catch {
                    failure = end(error)
                    return
                }
            }
            apply(model.recomputeAll(instance: instance))
        }
        if let failure { throw failure }
        if failed { throw .pluginFailed("\(descriptor.id): the action of '\(id)' failed — see the log") }
        return result
    }

    /// Checks the form (every visible required atom has a value, every valid-if holds, nothing is marked), then
    /// asks the plugin to build the document. Hidden atoms never block a submit.
    public func submit() -> SubmitOutcome {
        guard !isClosed, let module else { return .failed(FormSessionError.closed.description) }
        let issues = attention()
        guard issues.isEmpty else { return .needsAttention(issues) }
        // build_document may mark atoms or set values (and a fault ends the run).
        revision += 1
        let built: BuiltDocument?
        functions.enteringPlugin()
        do throws(PluginFault) {
            try tellHeld(module)
            built = try module.buildDocument()
        } catch {
            return .failed(end(error).description)
        }
        guard let built else { return .failed("the plugin has no build_document") }
        if let problem = built.problem { return .failed("\(descriptor.id): build_document: \(problem)") }
        switch built.status {
        case rbs_status_t(RBS_OK):
            var draft = DocumentDraft(operation: descriptor.id, plugin: operation.plugin.id,
                                      pluginVersion: operation.plugin.version, fields: built.fields)
            for (key, _) in built.fields { draft.presentation[key] = FieldPresentation.of(key, in: descriptor) }
            draft.form = FormTemplate(session: self)
            return .ready(draft)
        case rbs_status_t(RBS_INVALID):
            let marked = attention()
            return .needsAttention(marked.isEmpty ? [AtomIssue(atom: nil, message: HostMessage.operationRefused.text(language))] : marked)
        default:
            return .failed("\(descriptor.id): the plugin could not build the document — see the log")
        }
    }

    /// What needs attention before a submit.
    public func attention() -> [AtomIssue] {
        var issues: [AtomIssue] = []
        // A run its plugin's runtime ended cannot be submitted whatever its values say: that comes first.
        if let fault { issues.append(AtomIssue(atom: nil, message: fault)) }
        if let formMark { issues.append(AtomIssue(atom: nil, message: formMark)) }
        for (index, atom) in descriptor.atoms.enumerated() where model.isVisible(index) {
            if let mark = mark(at: index) {
                issues.append(AtomIssue(atom: atom.id, message: mark))
            } else if atom.holdsValue, !atom.isOptional, model.values[index].isNull {
                issues.append(AtomIssue(atom: atom.id, message: HostMessage.required(captions[index]).text(language)))
            } else if !model.values[index].isNull, !model.isValid(index) {
                // An empty atom is judged by whether it is required, not by its valid-if.
                issues.append(AtomIssue(atom: atom.id, message: atom.errorText ?? HostMessage.notValid(captions[index]).text(language)))
            }
        }
        return issues
    }

    // MARK: - Values

    /// `text` with its first letter capitalised (`RBS_ATOM_FLAG_CAPITALIZE`) and nothing else changed. Only the first:
    /// a period inside a payment's text is far more often an abbreviation's ("в т.ч. НДС", "г. Москва", "и.и."), a
    /// date's, an address's ("mail.ru") or a reference's than a sentence's end, and what is signed must be what was
    /// typed — capitalising after each one made "в т.Ч." of a purpose sent to the tax office.
    /// The letter's title case, and only when it is one letter of one scalar that stays one (ß would become "SS",
    /// ﬁ "FI": such a letter is left as typed, so the text keeps its letters and its length).
    private func capitalized(_ text: String) -> String {
        guard let first = text.firstIndex(where: \.isLetter) else { return text }
        let letter = text[first]
        guard letter.isLowercase, letter.unicodeScalars.count == 1, let scalar = letter.unicodeScalars.first else { return text }
        let title = scalar.properties.titlecaseMapping
        guard title.unicodeScalars.count == 1, title != String(scalar) else { return text }
        return String(text[..<first]) + title + String(text[text.index(after: first)...])
    }

    private func display(_ value: ExprValue, _ atom: AtomDescriptor, at index: Int) -> String {
        guard case .decimal = value else { return Self.display(value, atom) }
        // An amount's text (through Money, with its currency's minor units) is written once per value, not on every
        // render: the server renders the whole form before and after each commit.
        if let memo = displayMemo[index], Self.same(memo.value, value), memo.currency == atom.currency { return memo.text }
        let text = Self.display(value, atom)
        displayMemo[index] = (value, atom.currency, text)
        return text
    }

    /// The last decimal value shown per atom, in which currency, and its text (``display(_:_:at:)``).
    private var displayMemo: [Int: (value: ExprValue, currency: String?, text: String)] = [:]

    private static func display(_ value: ExprValue, _ atom: AtomDescriptor) -> String {
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

    /// What the change in progress did: the model's change sets, and the captions and marks the plugin set.
    private struct Recorded {
        var changes: [FormChanges] = []
        var captions: [Int] = []
        /// Atoms to judge again: marked by the plugin, or committed (with the cross-field checks that read them).
        var judged: Set<Int> = []
    }

    private var pending: Recorded?

    /// Runs one change to the form and turns what the model reported (and the plugin's caption and mark changes)
    /// into announcements: no snapshot is taken or compared. `committed` is the atom a value was committed to.
    private func recording(committed: Int? = nil, _ body: () -> Void) -> FormAnnouncements {
        revision += 1
        let outer = pending
        pending = Recorded()
        if let committed {
            pending?.judged.insert(committed)
            for (slot, compiled) in operation.compiled.slots.enumerated() where compiled.validIf?.reads.contains(committed) == true {
                pending?.judged.insert(slot)
            }
        }
        body()
        let recorded = pending ?? Recorded()
        pending = outer
        if outer != nil {
            pending?.changes += recorded.changes
            pending?.captions += recorded.captions
            pending?.judged.formUnion(recorded.judged)
        }
        return announcements(recorded)
    }

    /// Adds a model change set to the change in progress.
    private func apply(_ changes: FormChanges) {
        pending?.changes.append(changes)
    }

    private func announcements(_ recorded: Recorded) -> FormAnnouncements {
        let sets = recorded.changes
        var result = FormAnnouncements()
        // A slot's net visibility change: its first event's direction, if its last event agrees.
        var first: [Int: Bool] = [:], last: [Int: Bool] = [:]
        var touched: [Int] = []
        for set in sets {
            for (slots, visible) in [(set.appeared, true), (set.disappeared, false)] {
                for slot in slots {
                    if first[slot] == nil { first[slot] = visible; touched.append(slot) }
                    last[slot] = visible
                }
            }
        }
        for slot in touched.sorted() where first[slot] == last[slot] && model.isVisible(slot) == last[slot] {
            (last[slot] == true ? { result.appeared.append(self.descriptor.atoms[slot].id) }
                                : { result.disappeared.append(self.descriptor.atoms[slot].id) })()
        }
        var seen = Set<Int>()
        for slot in recorded.captions where seen.insert(slot).inserted {
            result.captions.append((descriptor.atoms[slot].id, captions[slot]))
        }
        // Errors: every atom whose validity changed, or that a cross-field check reads, is judged again now.
        var judged = recorded.judged
        for set in sets { judged.formUnion(set.becameInvalid); judged.formUnion(set.becameValid) }
        for slot in judged.sorted() {
            let id = descriptor.atoms[slot].id
            if let error = atom(id)?.error { result.errors.append((id, error)) } else { result.cleared.append(id) }
        }
        return result
    }

    private func index(of id: String) -> Int? { operation.compiled.slotByID[id] }

    /// A fault of the plugin's runtime (its worker crashed, exited or hung): the run is over. The module is closed
    /// without calling into the plugin again, and the fault becomes the error the front end shows.
    private func end(_ fault: PluginFault) -> FormSessionError {
        if fault.endsModule {
            if endedBy == nil {
                endedBy = fault
                // What the rollout of this version counts (and rolls back by): a run its worker's fault ended.
                PluginVersionCounters.shared.fault(VersionCount.version(of: operation.plugin))
            }
            close()
        }
        return .pluginFault(fault)
    }
}

// MARK: - What the plugin may do to its module

extension FormSession: ModuleControl {
    func pluginGetValue(atom id: String, arena: CStringArena) -> rbs_value_t? {
        guard let index = index(of: id) else { return nil }
        arena.reset()
        return CValue.make(model.effectiveValues[index], for: effective(index), arena: arena)
    }

    func pluginSetValue(atom id: String, value raw: rbs_value_t) -> Bool {
        guard let index = index(of: id), descriptor.atoms[index].holdsValue else { return false }
        let value: ExprValue
        do {
            value = try check(try CValue.typed(raw, for: effective(index)).get(), for: index)
        } catch {
            operation.plugin.hostTable.log(.warning, "set_value(\(id)) refused: \(error)")
            return false
        }
        functions.told[index] = value
        revision += 1
        apply(model.set(index, to: value, instance: instance))
        return true
    }

    func pluginSetCaption(atom id: String, caption: UnsafePointer<CChar>) -> Bool {
        guard let index = index(of: id) else { return false }
        let limit = TextLimits.maximumCaptionBytes
        let length = strnlen(caption, limit + 1)
        guard length <= limit else {
            operation.plugin.hostTable.log(.warning, "set_caption(\(id)) refused: longer than \(limit) bytes (the limit at load too)")
            return false
        }
        let bytes = UnsafeRawBufferPointer(start: caption, count: length).bindMemory(to: UInt8.self)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            operation.plugin.hostTable.log(.warning, "set_caption(\(id)) refused: the caption is not valid UTF-8")
            return false
        }
        if let control = ShownText.control(in: text) {
            operation.plugin.hostTable.log(.warning, "set_caption(\(id)) refused: the caption holds the control character \(control) (a terminal would run it)")
            return false
        }
        captionTexts[index] = nil
        show(caption: text, at: index)
        return true
    }

    /// rbs.run-texts/1's set_caption: the caption in each language the plugin writes.
    func pluginSetCaption(atom id: String, texts: RunText) -> Bool {
        guard let index = index(of: id) else { return false }
        captionTexts[index] = texts
        show(caption: texts.text(for: language), at: index)
        return true
    }

    private func show(caption text: String, at index: Int) {
        revision += 1
        captionsSetByPlugin.insert(index)
        if captions[index] != text {
            captions[index] = text
            pending?.captions.append(index)
        }
    }

    func pluginSetVisible(atom id: String, visible: Bool) -> Bool {
        guard let index = index(of: id), descriptor.atoms[index].showIf == nil else { return false }
        revision += 1
        apply(model.setManualVisibility(index, visible, instance: instance))
        return true
    }

    func pluginSetError(atom id: String?, message: String?) -> Bool {
        // Held to a caption's rules: a message a person reads, never longer, never a control character.
        if let message {
            let limit = TextLimits.maximumCaptionBytes
            if message.utf8.count > limit {
                operation.plugin.hostTable.log(.warning, "set_error(\(id ?? "the form")) refused: longer than \(limit) bytes (as a caption)")
                return false
            }
            if let control = ShownText.control(in: message) {
                operation.plugin.hostTable.log(.warning, "set_error(\(id ?? "the form")) refused: the message holds the control character \(control) (a terminal would run it)")
                return false
            }
        }
        return mark(atom: id, message: message, texts: nil)
    }

    /// rbs.run-texts/1's set_error: the mark in each language the plugin writes.
    func pluginSetError(atom id: String?, texts: RunText) -> Bool {
        mark(atom: id, message: texts.text(for: language), texts: texts)
    }

    func pluginRefused(_ call: String, atom: String?, _ why: RunTextRefusal) {
        operation.plugin.hostTable.log(.warning, why.logLine(call, atom: atom))
    }

    private func mark(atom id: String?, message: String?, texts: RunText?) -> Bool {
        revision += 1
        guard let id else {
            formMark = message
            markTexts[nil] = texts
            return true
        }
        guard let index = index(of: id) else { return false }
        marks[index] = message
        markTexts[index] = texts
        pending?.judged.insert(index)
        return true
    }
}

