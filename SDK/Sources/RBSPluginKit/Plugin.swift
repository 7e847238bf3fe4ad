import CRBSPlugin
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Exports a plugin written with the SDK: one line in the plugin's module does it.
///
/// ```swift
/// @_cdecl("rbs_plugin_entry")
/// public func rbsPluginEntry() -> UnsafeRawPointer? {
///     Plugin.entry(id: "ru.example.payments", name: "Payments", version: "1.0.0", vendor: "Example Bank",
///                  operations: [PayPPQuickOperation.self])
/// }
/// ```
///
/// The C descriptors are built once, on the first call, from a prototype instance of each operation, and live as
/// long as the image (a Swift image is never unloaded).
public enum Plugin {
    /// Pointers and metatypes are not Sendable; the mutex makes sharing them safe.
    private struct Shared<Value>: @unchecked Sendable { var value: Value }
    private static let exported = Mutex(Shared<UnsafeRawPointer?>(value: nil))
    /// Operation types by the address of their C descriptor, for `create`.
    private static let types = Mutex(Shared<[UnsafeRawPointer: any OperationDefinition.Type]>(value: [:]))

    /// The `rbs.requirements/1` table, when the plugin declared any.
    private static let requirements = Mutex(Shared<UnsafeRawPointer?>(value: nil))
    /// The `rbs.document-labels/1` table, when an operation labels its document's fields.
    private static let documentLabels = Mutex(Shared<UnsafeRawPointer?>(value: nil))
    /// The `rbs.texts/1` table, when an operation translates its texts.
    private static let texts = Mutex(Shared<UnsafeRawPointer?>(value: nil))
    /// The `rbs.function-reads/1` table, when a method says which atoms it reads.
    private static let functionReads = Mutex(Shared<UnsafeRawPointer?>(value: nil))
    /// The `rbs.recorded-atoms/1` table, when an operation lists atoms whose value it only records.
    private static let recordedAtoms = Mutex(Shared<UnsafeRawPointer?>(value: nil))
    /// The `rbs.amount-currency/1` table, when an amount takes the currency of a chosen account.
    private static let amountCurrencies = Mutex(Shared<UnsafeRawPointer?>(value: nil))

    /// The plugin's entry (`const rbs_plugin_entry_t *`), built on the first call.
    /// - Parameter requires: what the plugin cannot work without (rbs/ext/requirements.h): `"rbs.abi/1.1"`, or a host
    ///   service id such as `"rbs.directory/1"`. A host that lacks one refuses the plugin and names it.
    /// - Parameter lifecycle: `init()`/`deinit()` and `rbs.state/1` (see ``PluginLifecycle``); nil: none.
    public static func entry(id: String, name: String, version: String, vendor: String, description: String? = nil,
                             requires: [String] = [],
                             operations: [any OperationDefinition.Type],
                             lifecycle: PluginLifecycle? = nil) -> UnsafeRawPointer? {
        exported.withLock { cached in
            if let built = cached.value { return Shared(value: built) }
            self.lifecycle.withLock { $0 = lifecycle }
            if !requires.isEmpty {
                let features = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: requires.count)
                for (index, feature) in requires.enumerated() { features[index] = keep(feature) }
                let table = UnsafeMutablePointer<rbs_requirements_extension_t>.allocate(capacity: 1)
                table.initialize(to: rbs_requirements_extension_t(count: UInt32(requires.count),
                                                                  features: UnsafePointer(features)))
                requirements.withLock { $0.value = UnsafeRawPointer(table) }
            }
            let built = build(id: id, name: name, version: version, vendor: vendor, description: description,
                              operations: operations, lifecycle: lifecycle)
            cached.value = built
            return Shared(value: built)
        }.value
    }

    private static func build(id: String, name: String, version: String, vendor: String, description: String?,
                              operations: [any OperationDefinition.Type], lifecycle: PluginLifecycle?) -> UnsafeRawPointer {
        let descriptors = UnsafeMutablePointer<rbs_operation_descriptor_t>.allocate(capacity: max(operations.count, 1))
        for (index, type) in operations.enumerated() {
            let prototype = type.init()
            prototype.nameAtoms()
            let atoms = prototype.atoms
            let atomArray = UnsafeMutablePointer<rbs_atom_descriptor_t>.allocate(capacity: max(atoms.count, 1))
            for (atomIndex, atom) in atoms.enumerated() { atomArray[atomIndex] = describe(atom) }
            let functions = type.functions
            let functionArray = functions.isEmpty ? nil
                : UnsafeMutablePointer<rbs_function_descriptor_t>.allocate(capacity: functions.count)
            for (functionIndex, function) in functions.enumerated() {
                functionArray?[functionIndex] = rbs_function_descriptor_t(
                    name: keep(function.name), symbol: keep(function.symbol), signature: keep(function.signature),
                    flags: function.takesInstance ? UInt32(RBS_FUNCTION_INSTANCE) : 0)
            }
            descriptors[index] = rbs_operation_descriptor_t(
                id: keep(type.id), title: keep(type.title), category: keep(type.category),
                atom_count: UInt32(atoms.count), atoms: UnsafePointer(atomArray),
                function_count: UInt32(functions.count), functions: functionArray.map { UnsafePointer($0) },
                create: create, destroy: destroy, value_changed: valueChanged, action: action,
                build_document: buildDocument)
            types.withLock { $0.value[UnsafeRawPointer(descriptors + index)] = type }
        }
        let labels = operations.flatMap { type in type.documentLabels.map { (operation: type.id, label: $0) } }
        if !labels.isEmpty {
            let array = UnsafeMutablePointer<rbs_document_label_t>.allocate(capacity: labels.count)
            for (index, entry) in labels.enumerated() {
                array[index] = rbs_document_label_t(
                    operation_id: keep(entry.operation), key: keep(entry.label.key), label: entry.label.label.map(keep),
                    role: entry.label.role.rawValue, atom_id: entry.label.atom.map(keep))
            }
            let table = UnsafeMutablePointer<rbs_document_labels_extension_t>.allocate(capacity: 1)
            table.initialize(to: rbs_document_labels_extension_t(count: UInt32(labels.count), labels: UnsafePointer(array)))
            documentLabels.withLock { $0.value = UnsafeRawPointer(table) }
        }
        buildTexts(operations)
        buildFunctionReads(operations)
        buildRecordedAtoms(operations)
        buildAmountCurrencies(operations)
        let plugin = UnsafeMutablePointer<rbs_plugin_descriptor_t>.allocate(capacity: 1)
        plugin.initialize(to: rbs_plugin_descriptor_t(
            id: keep(id), name: keep(name), version: keep(version), vendor: keep(vendor),
            description: description.map(keep), operation_count: UInt32(operations.count),
            operations: operations.isEmpty ? nil : UnsafePointer(descriptors)))
        let entry = UnsafeMutablePointer<rbs_plugin_entry_t>.allocate(capacity: 1)
        entry.initialize(to: rbs_plugin_entry_t(
            abi_version: rbs_version_t(major: UInt32(RBS_ABI_MAJOR), minor: UInt32(RBS_ABI_MINOR),
                                       patch: UInt32(RBS_ABI_PATCH)),
            descriptor: UnsafePointer(plugin), init: lifecycle?.start == nil ? nil : initialize,
            deinit: lifecycle?.stop == nil ? nil : finalize, get_extension: getExtension))
        return UnsafeRawPointer(entry)
    }

    /// The `rbs.texts/1` table: every operation's translations, grouped by language in the order first listed.
    private static func buildTexts(_ operations: [any OperationDefinition.Type]) {
        var languages: [String] = []
        var byLanguage: [String: [rbs_translated_text_t]] = [:]
        for type in operations {
            for translation in type.translations {
                if byLanguage[translation.language] == nil { languages.append(translation.language) }
                byLanguage[translation.language, default: []] += translation.entries.map {
                    rbs_translated_text_t(what: $0.what, operation_id: keep(type.id), target: $0.target.map(keep),
                               option: $0.option.map(keep), text: keep($0.text))
                }
            }
        }
        guard !languages.isEmpty else { return }
        let table = UnsafeMutablePointer<rbs_language_texts_t>.allocate(capacity: languages.count)
        for (index, language) in languages.enumerated() {
            let entries = byLanguage[language] ?? []
            let array = UnsafeMutablePointer<rbs_translated_text_t>.allocate(capacity: max(entries.count, 1))
            for (entry, text) in entries.enumerated() { array[entry] = text }
            table[index] = rbs_language_texts_t(language: keep(language), count: UInt32(entries.count),
                                                texts: entries.isEmpty ? nil : UnsafePointer(array))
        }
        let extensionTable = UnsafeMutablePointer<rbs_texts_extension_t>.allocate(capacity: 1)
        extensionTable.initialize(to: rbs_texts_extension_t(language_count: UInt32(languages.count),
                                                            languages: UnsafePointer(table)))
        texts.withLock { $0.value = UnsafeRawPointer(extensionTable) }
    }

    /// The `rbs.function-reads/1` table: one entry per method that lists the atoms it reads.
    private static func buildFunctionReads(_ operations: [any OperationDefinition.Type]) {
        let declared = operations.flatMap { type in
            type.functions.compactMap { function in function.reads.map { (operation: type.id, function: function.name, atoms: $0) } }
        }
        guard !declared.isEmpty else { return }
        let array = UnsafeMutablePointer<rbs_function_reads_t>.allocate(capacity: declared.count)
        for (index, entry) in declared.enumerated() {
            var ids: UnsafeMutablePointer<UnsafePointer<CChar>?>?
            if !entry.atoms.isEmpty {
                ids = .allocate(capacity: entry.atoms.count)
                for (atomIndex, atom) in entry.atoms.enumerated() { ids?[atomIndex] = keep(atom) }
            }
            array[index] = rbs_function_reads_t(operation_id: keep(entry.operation), function: keep(entry.function),
                                                atom_count: UInt32(entry.atoms.count), atom_ids: ids.map { UnsafePointer($0) })
        }
        let table = UnsafeMutablePointer<rbs_function_reads_extension_t>.allocate(capacity: 1)
        table.initialize(to: rbs_function_reads_extension_t(count: UInt32(declared.count), functions: UnsafePointer(array)))
        functionReads.withLock { $0.value = UnsafeRawPointer(table) }
    }

    /// The `rbs.recorded-atoms/1` table: one entry per operation that lists atoms whose value it only records.
    private static func buildRecordedAtoms(_ operations: [any OperationDefinition.Type]) {
        let listing = operations.filter { !$0.recordedAtoms.isEmpty }
        guard !listing.isEmpty else { return }
        let array = UnsafeMutablePointer<rbs_recorded_atoms_t>.allocate(capacity: listing.count)
        for (index, type) in listing.enumerated() {
            let ids = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: type.recordedAtoms.count)
            for (atomIndex, atom) in type.recordedAtoms.enumerated() { ids[atomIndex] = keep(atom) }
            array[index] = rbs_recorded_atoms_t(operation_id: keep(type.id), atom_count: UInt32(type.recordedAtoms.count),
                                                atom_ids: UnsafePointer(ids))
        }
        let table = UnsafeMutablePointer<rbs_recorded_atoms_extension_t>.allocate(capacity: 1)
        table.initialize(to: rbs_recorded_atoms_extension_t(count: UInt32(listing.count), operations: UnsafePointer(array)))
        recordedAtoms.withLock { $0.value = UnsafeRawPointer(table) }
    }

    /// The `rbs.amount-currency/1` table: one entry per amount that takes the currency of a chosen account.
    private static func buildAmountCurrencies(_ operations: [any OperationDefinition.Type]) {
        let entries = operations.flatMap { type in
            type.amountCurrencies.sorted { $0.key < $1.key }.map { (operation: type.id, amount: $0.key, account: $0.value) }
        }
        guard !entries.isEmpty else { return }
        let array = UnsafeMutablePointer<rbs_amount_currency_t>.allocate(capacity: entries.count)
        for (index, entry) in entries.enumerated() {
            array[index] = rbs_amount_currency_t(operation_id: keep(entry.operation), amount_atom_id: keep(entry.amount),
                                                 account_atom_id: keep(entry.account))
        }
        let table = UnsafeMutablePointer<rbs_amount_currency_extension_t>.allocate(capacity: 1)
        table.initialize(to: rbs_amount_currency_extension_t(count: UInt32(entries.count), amounts: UnsafePointer(array)))
        amountCurrencies.withLock { $0.value = UnsafeRawPointer(table) }
    }

    private static func describe(_ atom: Atom) -> rbs_atom_descriptor_t {
        var options: UnsafeMutablePointer<rbs_option_t>?
        if !atom.options.isEmpty {
            options = .allocate(capacity: atom.options.count)
            for (index, option) in atom.options.enumerated() {
                options?[index] = rbs_option_t(value: keep(option.value), title: keep(option.title))
            }
        }
        return rbs_atom_descriptor_t(
            id: keep(atom.id), kind: UInt32(atom.kind), input_type: UInt32(atom.inputType), flags: atom.flags,
            min_length: UInt32(atom.minLength), max_length: UInt32(atom.maxLength), caption: keep(atom.caption),
            hint: atom.hint.map(keep), currency: atom.currency.map(keep), show_if: atom.showIf.map(keep),
            valid_if: atom.validIf.map(keep), error_text: atom.errorText.map(keep), filter: atom.filter.map(keep),
            default_value: atom.defaultValue.map(keep), option_count: UInt32(atom.options.count),
            options: options.map { UnsafePointer($0) })
    }

    /// A C string that lives as long as the image.
    private static func keep(_ text: String) -> UnsafePointer<CChar> { UnsafePointer(strdup(text)!) }

    // MARK: - Callbacks

    /// `get_extension`: the requirements table for "rbs.requirements/1", the labels for "rbs.document-labels/1",
    /// the translations for "rbs.texts/1", the methods' reads for "rbs.function-reads/1", the atoms whose value is
    /// only recorded for "rbs.recorded-atoms/1", the amounts in a chosen account's currency for
    /// "rbs.amount-currency/1", the state hand-over for
    /// "rbs.state/1" (when the lifecycle has one), NULL for anything else. [plugin-thread]
    private static let getExtension: @convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer? = { id in
        guard let id else { return nil }
        if strcmp(id, RBS_EXT_REQUIREMENTS) == 0 { return requirements.withLock { Shared(value: $0.value) }.value }
        if strcmp(id, RBS_EXT_DOCUMENT_LABELS) == 0 { return documentLabels.withLock { Shared(value: $0.value) }.value }
        if strcmp(id, RBS_EXT_TEXTS) == 0 { return texts.withLock { Shared(value: $0.value) }.value }
        if strcmp(id, RBS_EXT_FUNCTION_READS) == 0 { return functionReads.withLock { Shared(value: $0.value) }.value }
        if strcmp(id, RBS_EXT_RECORDED_ATOMS) == 0 { return recordedAtoms.withLock { Shared(value: $0.value) }.value }
        if strcmp(id, RBS_EXT_AMOUNT_CURRENCY) == 0 { return amountCurrencies.withLock { Shared(value: $0.value) }.value }
        if strcmp(id, RBS_EXT_STATE) == 0, lifecycle.withLock({ $0?.state != nil }) { return stateExtension }
        return nil
    }

    private static let create: @convention(c) (UnsafePointer<rbs_operation_descriptor_t>?, UnsafePointer<rbs_host_t>?,
                                               OpaquePointer?) -> UnsafeMutableRawPointer? = { descriptor, host, module in
        guard let descriptor, let host, let module,
              let type = types.withLock({ Shared(value: $0.value[UnsafeRawPointer(descriptor)]) }).value else { return nil }
        let operation = type.init()
        operation.nameAtoms()
        operation.host = Host(host)
        let context = InstanceContext(operation: operation, host: host, module: module)
        for atom in operation.atoms { atom.context = context }
        operation.onOpen()
        return Unmanaged.passRetained(context).toOpaque()
    }

    private static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
        guard let instance else { return }
        Unmanaged<InstanceContext>.fromOpaque(instance).release()
    }

    private static func context(_ instance: UnsafeMutableRawPointer?) -> InstanceContext? {
        instance.map { Unmanaged<InstanceContext>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let valueChanged: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?,
                                                     UnsafePointer<rbs_value_t>?, Bool) -> rbs_status_t = {
        instance, atomID, value, commit in
        guard let context = context(instance), let atomID, let value else { return rbs_status_t(RBS_FAILED) }
        guard let atom = context.operation.atom(String(cString: atomID)) else { return rbs_status_t(RBS_FAILED) }
        atom.value = AtomValue(value.pointee)
        context.operation.onAtomValueChanged(atom, commit: commit)
        return rbs_status_t(RBS_OK)
    }

    private static let action: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> rbs_status_t = {
        instance, atomID in
        guard let context = context(instance), let atomID,
              let atom = context.operation.atom(String(cString: atomID)) else { return rbs_status_t(RBS_FAILED) }
        context.operation.onButtonTap(atom)
        return rbs_status_t(RBS_OK)
    }

    private static let buildDocument: @convention(c) (UnsafeMutableRawPointer?,
                                                      UnsafePointer<rbs_document_builder_t>?) -> rbs_status_t = {
        instance, builder in
        guard let context = context(instance), let builder, let put = builder.pointee.put else {
            return rbs_status_t(RBS_FAILED)
        }
        context.refreshValues()
        let fields: [(key: String, value: String)]
        do throws(DocumentRefusal) { fields = try context.operation.document() } catch {
            if let texts = error.texts { context.setTexts(.error, error.atom, texts) } else { context.setError(error.atom, error.message) }
            return rbs_status_t(RBS_INVALID)
        }
        for (key, value) in fields {
            guard put(builder, key, value) else { return rbs_status_t(RBS_FAILED) }
        }
        return rbs_status_t(RBS_OK)
    }
}
