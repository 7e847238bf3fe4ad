import CRBSPlugin
#if canImport(Glibc)
import Glibc
#endif

/// Reads a plugin's C descriptors into a `PluginManifest`, checking every field before anything is registered:
/// required fields present, valid UTF-8, ids well formed and unique, counts in bounds, known kinds, enum options,
/// callbacks present.
struct DescriptorReader {
    static let maxOperations = 256
    static let maxAtoms = 4096
    static let maxFunctions = 256
    static let maxOptions = 1024
    static let maxText = 64 * 1024

    /// Reads and validates what `entry` describes.
    static func read(_ entry: UnsafePointer<rbs_plugin_entry_t>) throws(PluginProblem) -> PluginManifest {
        let abi = ABIVersion(entry.pointee.abi_version)
        try checkCompatible(abi)
        try checkRequirements(entry, abi: abi)
        do {
            return try readDescriptor(entry, abi: abi)
        } catch .descriptor(let location, let issue) where abi.minor > ABIVersion.host.minor {
            // A value this host does not know may be one a later minor added: say so.
            throw .descriptor(location: location, issue: "\(issue); the plugin was built against ABI \(abi.short), newer than this host's \(ABIVersion.host.short), so it may use a feature this host lacks (update rbs-host, or list what it needs in \(RBS_EXT_REQUIREMENTS))")
        }
    }

    private static func readDescriptor(_ entry: UnsafePointer<rbs_plugin_entry_t>,
                                       abi: ABIVersion) throws(PluginProblem) -> PluginManifest {
        guard let descriptor = entry.pointee.descriptor else {
            throw .descriptor(location: "entry", issue: "descriptor is NULL")
        }
        let plugin = descriptor.pointee
        let location = "plugin"
        let id = try text(plugin.id, "id", at: location)
        guard isReverseDNS(id) else {
            throw .descriptor(location: location, issue: "id '\(id)' is not reverse-DNS (lowercase words joined by dots, e.g. ru.bank.payments)")
        }
        let here = "plugin '\(id)'"
        let name = try shown(text(plugin.name, "name", at: here), "name", at: here)
        let version = try text(plugin.version, "version", at: here)
        guard isVersion(version) else {
            throw .descriptor(location: here, issue: "version '\(version)' is not a semantic version like 1.2.0")
        }
        let vendor = try shown(text(plugin.vendor, "vendor", at: here), "vendor", at: here)
        let description = try shown(optionalText(plugin.description, "description", at: here), "description", at: here, lines: true)
        let count = Int(plugin.operation_count)
        guard count <= maxOperations else {
            throw .descriptor(location: here, issue: "operation_count \(count) is more than \(maxOperations)")
        }
        var operations: [OperationDescriptor] = []
        if count > 0 {
            guard let array = plugin.operations else {
                throw .descriptor(location: here, issue: "operations is NULL but operation_count is \(count)")
            }
            var seen = Set<String>()
            for index in 0..<count {
                let operation = try readOperation(array[index], index: index, plugin: here)
                guard seen.insert(operation.id).inserted else {
                    throw .descriptor(location: here, issue: "operation id '\(operation.id)' appears twice")
                }
                operations.append(operation)
            }
        }
        try readDocumentLabels(entry, into: &operations)
        try readTexts(entry, into: &operations)
        try readFunctionReads(entry, plugin: id, into: &operations)
        try readRecordedAtoms(entry, plugin: id, into: &operations)
        try readAmountCurrencies(entry, plugin: id, into: &operations)
        return PluginManifest(id: id, name: name, version: version, vendor: vendor, description: description,
                              abi: abi, operations: operations)
    }

    /// The most entries of `rbs.document-labels/1`.
    static let maxDocumentLabels = 4096

    /// Reads the plugin's `rbs.document-labels/1` (if it offers it) into its operations, checking every entry: a
    /// known operation, a well-formed key once per operation, a known role that fits the key (the roles of the
    /// core's keys belong to those keys only), an atom of that operation.
    static func readDocumentLabels(_ entry: UnsafePointer<rbs_plugin_entry_t>,
                                   into operations: inout [OperationDescriptor]) throws(PluginProblem) {
        let location = "extension \(RBS_EXT_DOCUMENT_LABELS)"
        guard let labels = try entries(of: entry, RBS_EXT_DOCUMENT_LABELS, as: rbs_document_labels_extension_t.self,
                                       at: location, limit: maxDocumentLabels, field: "labels",
                                       count: \.count, first: \.labels) else { return }
        for (index, raw) in labels.enumerated() {
            let at = "\(location) entry #\(index + 1)"
            let (operationID, slot) = try operation(raw.operation_id, in: operations, at: at)
            let key = try text(raw.key, "key", at: at)
            guard DocumentCollector.isKey(key) else {
                throw .descriptor(location: at, issue: "key '\(key)' is not a document key ([a-z][A-Za-z0-9_]*)")
            }
            let here = "\(location) '\(operationID)' key '\(key)'"
            guard !operations[slot].documentLabels.contains(where: { $0.key == key }) else {
                throw .descriptor(location: location, issue: "operation '\(operationID)' labels key '\(key)' twice")
            }
            guard let role = DocumentFieldRole(rawValue: raw.role) else {
                throw .descriptor(location: here, issue: "unknown role \(raw.role) (known: 0 RBS_FIELD_ROLE_OTHER … 9 RBS_FIELD_ROLE_CARD_NUMBER)")
            }
            let fixed = DocumentFieldRole.ofCoreKey(key)
            if let fixed, role != fixed, role != .other {
                throw .descriptor(location: here, issue: "the core reads '\(key)' as \(fixed), not \(role)")
            }
            if fixed == nil, let owner = role.coreKey {
                throw .descriptor(location: here, issue: "\(role) belongs to the core's key '\(owner)' only: the review's prominent lines are what the core posts")
            }
            let label = try shown(optionalText(raw.label, "label", at: here), "label", at: here)
            if let label, label.isEmpty { throw .descriptor(location: here, issue: "label is empty (NULL uses the atom's caption)") }
            let atom = try optionalText(raw.atom_id, "atom_id", at: here)
            if let atom, !operations[slot].atoms.contains(where: { $0.id == atom && $0.holdsValue }) {
                throw .descriptor(location: here, issue: "atom_id '\(atom)' is not an atom with a value in '\(operationID)'")
            }
            operations[slot].documentLabels.append(DocumentLabel(key: key, label: label, role: fixed ?? role, atom: atom))
        }
    }

    /// The most entries of `rbs.function-reads/1`, and the most atoms one function may list.
    static let maxFunctionReads = 4096

    /// Reads the plugin's `rbs.function-reads/1` (if it offers it) into its functions' ``FunctionDescriptor/reads``,
    /// checking every entry: a known operation, one of its instance-bound functions (once), and atoms of that
    /// operation that hold a value (each once). A wrong entry names the plugin, the function and the atom: an atom
    /// the form does not have would make the host keep an answer that no commit ever refreshes.
    static func readFunctionReads(_ entry: UnsafePointer<rbs_plugin_entry_t>, plugin: String,
                                  into operations: inout [OperationDescriptor]) throws(PluginProblem) {
        let location = "plugin '\(plugin)' extension \(RBS_EXT_FUNCTION_READS)"
        guard let declared = try entries(of: entry, RBS_EXT_FUNCTION_READS, as: rbs_function_reads_extension_t.self,
                                         at: location, limit: maxFunctionReads, field: "functions",
                                         count: \.count, first: \.functions) else { return }
        for (index, raw) in declared.enumerated() {
            let at = "\(location) entry #\(index + 1)"
            let (operationID, slot) = try operation(raw.operation_id, in: operations, at: at)
            let name = try text(raw.function, "function", at: at)
            let here = "\(location) operation '\(operationID)' function '\(name)'"
            guard let function = operations[slot].functions.firstIndex(where: { $0.name == name }) else {
                throw .descriptor(location: here, issue: "'\(name)' is not a function of '\(operationID)'")
            }
            guard operations[slot].functions[function].takesInstance else {
                throw .descriptor(location: here, issue: "the function takes no instance (no RBS_FUNCTION_INSTANCE): it reads its arguments alone, so it has no atoms to declare")
            }
            guard operations[slot].functions[function].reads == nil else {
                throw .descriptor(location: here, issue: "its reads are declared twice")
            }
            operations[slot].functions[function].reads = try valueAtoms(
                raw.atom_ids, count: raw.atom_count, of: operations[slot], at: here,
                noValue: "a function can read only atoms with a value")
        }
    }

    /// Reads the plugin's `rbs.recorded-atoms/1` (if it offers it) into its operations'
    /// ``OperationDescriptor/recordedAtoms``, checking every entry: a known operation (once), atoms of it that hold a
    /// value (each once). A wrong entry names the plugin, the operation and the atom.
    static func readRecordedAtoms(_ entry: UnsafePointer<rbs_plugin_entry_t>, plugin: String,
                                  into operations: inout [OperationDescriptor]) throws(PluginProblem) {
        let location = "plugin '\(plugin)' extension \(RBS_EXT_RECORDED_ATOMS)"
        guard let declared = try entries(of: entry, RBS_EXT_RECORDED_ATOMS, as: rbs_recorded_atoms_extension_t.self,
                                         at: location, limit: maxOperations, field: "operations",
                                         count: \.count, first: \.operations) else { return }
        var seen = Set<String>()
        for (index, raw) in declared.enumerated() {
            let at = "\(location) entry #\(index + 1)"
            let (operationID, slot) = try operation(raw.operation_id, in: operations, at: at)
            let here = "\(location) operation '\(operationID)'"
            guard seen.insert(operationID).inserted else {
                throw .descriptor(location: here, issue: "the operation is listed twice")
            }
            operations[slot].recordedAtoms = try valueAtoms(
                raw.atom_ids, count: raw.atom_count, of: operations[slot], at: here,
                noValue: "value_changed is called only for atoms with a value")
        }
    }

    /// The most entries of `rbs.amount-currency/1` (rbs/ext/amount_currency.h).
    static let maxAmountCurrencies = 4096

    /// Reads the plugin's `rbs.amount-currency/1` (if it offers it) into its amount atoms'
    /// ``AtomDescriptor/currencyOfAccount``, checking every entry: a known operation, an amount atom of it (in one
    /// entry at most) and an account atom of it. A wrong entry names the plugin, the operation and the atom.
    static func readAmountCurrencies(_ entry: UnsafePointer<rbs_plugin_entry_t>, plugin: String,
                                     into operations: inout [OperationDescriptor]) throws(PluginProblem) {
        let location = "plugin '\(plugin)' extension \(RBS_EXT_AMOUNT_CURRENCY)"
        guard let declared = try entries(of: entry, RBS_EXT_AMOUNT_CURRENCY, as: rbs_amount_currency_extension_t.self,
                                         at: location, limit: maxAmountCurrencies, field: "amounts",
                                         count: \.count, first: \.amounts) else { return }
        for (index, raw) in declared.enumerated() {
            let at = "\(location) entry #\(index + 1)"
            let (operationID, slot) = try operation(raw.operation_id, in: operations, at: at)
            let amountID = try text(raw.amount_atom_id, "amount_atom_id", at: at)
            let here = "\(location) operation '\(operationID)' atom '\(amountID)'"
            guard let amount = operations[slot].atoms.firstIndex(where: { $0.id == amountID }) else {
                throw .descriptor(location: here, issue: "'\(amountID)' is not an atom of '\(operationID)'")
            }
            guard operations[slot].atoms[amount].kind == .input, operations[slot].atoms[amount].inputType == .amount else {
                throw .descriptor(location: here, issue: "'\(amountID)' is not an amount (RBS_ATOM_INPUT with RBS_INPUT_AMOUNT)")
            }
            guard operations[slot].atoms[amount].currencyOfAccount == nil else {
                throw .descriptor(location: here, issue: "the amount is listed twice")
            }
            let accountID = try text(raw.account_atom_id, "account_atom_id", at: here)
            guard operations[slot].atoms.contains(where: { $0.id == accountID && $0.kind == .account }) else {
                let known = operations[slot].atoms.contains { $0.id == accountID }
                throw .descriptor(location: here, issue: known
                    ? "account_atom_id '\(accountID)' is not an account atom (RBS_ATOM_ACCOUNT)"
                    : "account_atom_id '\(accountID)' is not an atom of '\(operationID)'")
            }
            operations[slot].atoms[amount].currencyOfAccount = accountID
        }
    }

    /// The `count` atom ids at `ids` an extension's entry lists for `operation`: each an atom of it that holds a
    /// value, each once. `noValue` says why an atom without a value cannot be listed.
    private static func valueAtoms(_ ids: UnsafePointer<UnsafePointer<CChar>?>?, count: UInt32,
                                   of operation: OperationDescriptor, at here: String,
                                   noValue: String) throws(PluginProblem) -> [String] {
        let atomCount = Int(count)
        guard atomCount <= maxAtoms else {
            throw .descriptor(location: here, issue: "atom_count \(atomCount) is more than \(maxAtoms)")
        }
        guard atomCount > 0 else { return [] }
        guard let ids else {
            throw .descriptor(location: here, issue: "atom_ids is NULL but atom_count is \(atomCount)")
        }
        var listed: [String] = []
        for atomIndex in 0..<atomCount {
            let atom = try text(ids[atomIndex], "atom #\(atomIndex + 1)", at: here)
            guard operation.atoms.contains(where: { $0.id == atom && $0.holdsValue }) else {
                let known = operation.atoms.contains { $0.id == atom }
                throw .descriptor(location: here, issue: known
                    ? "atom '\(atom)' holds no value (a text or a button): \(noValue)"
                    : "atom '\(atom)' is not an atom of '\(operation.id)'")
            }
            guard !listed.contains(atom) else {
                throw .descriptor(location: here, issue: "atom '\(atom)' is listed twice")
            }
            listed.append(atom)
        }
        return listed
    }

    /// Reads the plugin's `rbs.texts/1` (if it offers it) into its operations' ``OperationDescriptor/texts``, then
    /// checks them all (``TranslationRules``): each entry names a known kind, operation, atom, option or key, at most
    /// once per language, and each text is short, visible and free of control characters.
    static func readTexts(_ entry: UnsafePointer<rbs_plugin_entry_t>,
                          into operations: inout [OperationDescriptor]) throws(PluginProblem) {
        guard let getExtension = entry.pointee.get_extension,
              let raw = getExtension(RBS_EXT_TEXTS) else { return }
        let table = raw.assumingMemoryBound(to: rbs_texts_extension_t.self).pointee
        let location = "extension \(RBS_EXT_TEXTS)"
        let languageCount = Int(table.language_count)
        guard languageCount <= TranslationRules.maxLanguages else {
            throw .descriptor(location: location, issue: "language_count \(languageCount) is more than \(TranslationRules.maxLanguages)")
        }
        guard languageCount > 0 else { return }
        guard let languages = table.languages else {
            throw .descriptor(location: location, issue: "languages is NULL but language_count is \(languageCount)")
        }
        var seenLanguages = Set<String>()
        for languageIndex in 0..<languageCount {
            let entry = languages[languageIndex]
            let language = try text(entry.language, "language", at: "\(location) language #\(languageIndex + 1)")
            guard TranslationRules.isLanguageTag(language) else {
                throw .descriptor(location: "\(location) language #\(languageIndex + 1)", issue: "language '\(language)' is not an ISO 639-1 code in lowercase (ru, en)")
            }
            guard seenLanguages.insert(language).inserted else {
                throw .descriptor(location: location, issue: "language '\(language)' appears twice")
            }
            let count = Int(entry.count)
            let here = "\(location) language '\(language)'"
            guard count <= TranslationRules.maxTexts else {
                throw .descriptor(location: here, issue: "count \(count) is more than \(TranslationRules.maxTexts)")
            }
            guard count > 0 else { continue }
            guard let texts = entry.texts else {
                throw .descriptor(location: here, issue: "texts is NULL but count is \(count)")
            }
            var translated: [String: OperationTexts] = [:]
            for index in 0..<count {
                let raw = texts[index]
                let at = "\(here) entry #\(index + 1)"
                let (operationID, _) = try operation(raw.operation_id, in: operations, at: at)
                let target = try optionalText(raw.target, "target", at: at)
                let option = try optionalText(raw.option, "option", at: at)
                // Its length, control and invisible characters are checked by TranslationRules below, once for all.
                let value = try text(raw.text, "text", at: at)
                var slot = translated[operationID] ?? OperationTexts()
                func needs(_ field: String, _ present: Bool) throws(PluginProblem) {
                    if !present { throw .descriptor(location: at, issue: "\(field) is NULL") }
                }
                func refuses(_ field: String, _ present: Bool) throws(PluginProblem) {
                    if present { throw .descriptor(location: at, issue: "\(field) is set, but this kind of text takes none") }
                }
                func once<Key: Hashable>(_ dictionary: inout [Key: String], _ key: Key, _ what: String) throws(PluginProblem) {
                    guard dictionary[key] == nil else { throw .descriptor(location: at, issue: "\(what) is translated twice") }
                    dictionary[key] = value
                }
                switch raw.what {
                case UInt32(RBS_TEXT_OPERATION_TITLE), UInt32(RBS_TEXT_OPERATION_CATEGORY):
                    try refuses("target", target != nil)
                    try refuses("option", option != nil)
                    let isTitle = raw.what == UInt32(RBS_TEXT_OPERATION_TITLE)
                    guard (isTitle ? slot.title : slot.category) == nil else {
                        throw .descriptor(location: at, issue: "the \(isTitle ? "title" : "category") of '\(operationID)' is translated twice")
                    }
                    if isTitle { slot.title = value } else { slot.category = value }
                case UInt32(RBS_TEXT_ATOM_CAPTION), UInt32(RBS_TEXT_ATOM_HINT), UInt32(RBS_TEXT_ATOM_ERROR),
                     UInt32(RBS_TEXT_DOCUMENT_LABEL):
                    try needs("target", target != nil)
                    try refuses("option", option != nil)
                    let target = target ?? ""
                    switch raw.what {
                    case UInt32(RBS_TEXT_ATOM_CAPTION): try once(&slot.captions, target, "the caption of '\(target)'")
                    case UInt32(RBS_TEXT_ATOM_HINT): try once(&slot.hints, target, "the hint of '\(target)'")
                    case UInt32(RBS_TEXT_ATOM_ERROR): try once(&slot.errors, target, "the error text of '\(target)'")
                    default: try once(&slot.labels, target, "the label of '\(target)'")
                    }
                case UInt32(RBS_TEXT_OPTION_TITLE):
                    try needs("target", target != nil)
                    try needs("option", option != nil)
                    var titles = slot.options[target ?? ""] ?? [:]
                    try once(&titles, option ?? "", "the title of option '\(option ?? "")' of '\(target ?? "")'")
                    slot.options[target ?? ""] = titles
                default:
                    throw .descriptor(location: at, issue: "unknown kind of text \(raw.what) (known: 1 RBS_TEXT_OPERATION_TITLE … 7 RBS_TEXT_DOCUMENT_LABEL)")
                }
                translated[operationID] = slot
            }
            for (operationID, slot) in translated {
                guard let index = operations.firstIndex(where: { $0.id == operationID }) else { continue }
                operations[index].texts[language] = slot
            }
        }
        try TranslationRules.validate(operations)
    }

    /// The host refuses another major; any minor of its own major loads (`rbs_version_is_compatible`, rbs/version.h):
    /// growth within a major is by extensions, and what a plugin cannot do without it lists in its requirements.
    static func checkCompatible(_ abi: ABIVersion) throws(PluginProblem) {
        guard rbs_version_is_compatible(abi.raw) else { throw .abiMajor(plugin: abi, host: ABIVersion.host) }
    }

    /// The most features a plugin may list in `rbs.requirements/1`.
    static let maxRequirements = 64

    /// The host services a plugin may require by id (registered by `HostServiceTables`).
    static let hostServices: Set<String> = [RBS_SERVICE_ACCOUNTS, RBS_SERVICE_CARDS, RBS_SERVICE_DIRECTORY, RBS_SERVICE_LOG,
                                            RBS_SERVICE_CLOCK, RBS_SERVICE_RUN_TEXTS]

    /// Reads the plugin's `rbs.requirements/1` (if it offers it) and refuses the plugin, naming the first feature
    /// this host lacks: an ABI version newer than the host's, or a service the host does not offer.
    static func checkRequirements(_ entry: UnsafePointer<rbs_plugin_entry_t>, abi: ABIVersion) throws(PluginProblem) {
        let location = "extension \(RBS_EXT_REQUIREMENTS)"
        guard let features = try entries(of: entry, RBS_EXT_REQUIREMENTS, as: rbs_requirements_extension_t.self,
                                         at: location, limit: maxRequirements, field: "features",
                                         count: \.count, first: \.features) else { return }
        for (index, raw) in features.enumerated() {
            let feature = try text(raw, "feature #\(index + 1)", at: location)
            guard !isProvided(feature) else { continue }
            throw .missingFeature(feature: feature, plugin: abi, host: ABIVersion.host)
        }
    }

    /// Whether this host has `feature`: "rbs.abi/MAJOR.MINOR" up to its own version, or one of its services.
    static func isProvided(_ feature: String) -> Bool {
        let abiPrefix = "rbs.abi/"
        if feature.hasPrefix(abiPrefix) {
            let parts = feature.dropFirst(abiPrefix.count).split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let major = UInt32(parts[0]), let minor = UInt32(parts[1]) else { return false }
            return major == ABIVersion.host.major && minor <= ABIVersion.host.minor
        }
        return hostServices.contains(feature)
    }

    private static func readOperation(_ raw: rbs_operation_descriptor_t, index: Int,
                                      plugin: String) throws(PluginProblem) -> OperationDescriptor {
        let id = try text(raw.id, "id", at: "\(plugin) operation #\(index + 1)")
        guard isOperationID(id) else {
            throw .descriptor(location: "\(plugin) operation #\(index + 1)",
                              issue: "id '\(id)' is not lowercase words joined by dots (e.g. pay.pp.quick)")
        }
        let here = "operation '\(id)'"
        let title = try shown(text(raw.title, "title", at: here), "title", at: here)
        let category = try shown(text(raw.category, "category", at: here), "category", at: here)
        guard raw.create != nil else { throw .descriptor(location: here, issue: "the create callback is NULL") }
        guard raw.destroy != nil else { throw .descriptor(location: here, issue: "the destroy callback is NULL") }
        guard raw.build_document != nil else {
            throw .descriptor(location: here, issue: "the build_document callback is NULL")
        }
        let atomCount = Int(raw.atom_count)
        guard atomCount >= 1, atomCount <= maxAtoms else {
            throw .descriptor(location: here, issue: "atom_count \(atomCount) is outside 1...\(maxAtoms)")
        }
        guard let atomArray = raw.atoms else {
            throw .descriptor(location: here, issue: "atoms is NULL but atom_count is \(atomCount)")
        }
        var atoms: [AtomDescriptor] = []
        var atomIDs = Set<String>()
        for atomIndex in 0..<atomCount {
            let atom = try readAtom(atomArray[atomIndex], index: atomIndex, operation: here)
            guard atomIDs.insert(atom.id).inserted else {
                throw .descriptor(location: here, issue: "atom id '\(atom.id)' appears twice")
            }
            if atom.kind == .button, !atom.flags.contains(.submit), raw.action == nil {
                throw .descriptor(location: "\(here) atom '\(atom.id)'",
                                  issue: "a button without RBS_ATOM_FLAG_SUBMIT needs the operation's action callback, which is NULL")
            }
            atoms.append(atom)
        }
        let functionCount = Int(raw.function_count)
        guard functionCount <= maxFunctions else {
            throw .descriptor(location: here, issue: "function_count \(functionCount) is more than \(maxFunctions)")
        }
        var functions: [FunctionDescriptor] = []
        if functionCount > 0 {
            guard let array = raw.functions else {
                throw .descriptor(location: here, issue: "functions is NULL but function_count is \(functionCount)")
            }
            var names = Set<String>()
            for functionIndex in 0..<functionCount {
                let function = array[functionIndex]
                let at = "\(here) function #\(functionIndex + 1)"
                let name = try text(function.name, "name", at: at)
                guard isIdentifier(name) else { throw .descriptor(location: at, issue: "name '\(name)' is not an identifier") }
                guard names.insert(name).inserted else {
                    throw .descriptor(location: here, issue: "function '\(name)' appears twice")
                }
                if atomIDs.contains(name) {
                    throw .descriptor(location: here, issue: "function '\(name)' has the same name as an atom")
                }
                let symbol = try text(function.symbol, "symbol", at: "\(here) function '\(name)'")
                let signature = try text(function.signature, "signature", at: "\(here) function '\(name)'")
                let known = UInt32(RBS_FUNCTION_INSTANCE)
                guard function.flags & ~known == 0 else {
                    throw .descriptor(location: "\(here) function '\(name)'", issue: "unknown flags 0x\(String(function.flags, radix: 16))")
                }
                functions.append(FunctionDescriptor(name: name, symbol: symbol, signature: signature,
                                                    takesInstance: function.flags & known != 0))
            }
        }
        return OperationDescriptor(id: id, title: title, category: category, atoms: atoms, functions: functions,
                                   observesValues: raw.value_changed != nil, hasAction: raw.action != nil)
    }

    private static func readAtom(_ raw: rbs_atom_descriptor_t, index: Int,
                                 operation: String) throws(PluginProblem) -> AtomDescriptor {
        let id = try text(raw.id, "id", at: "\(operation) atom #\(index + 1)")
        guard isIdentifier(id) else {
            throw .descriptor(location: "\(operation) atom #\(index + 1)", issue: "id '\(id)' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)")
        }
        let here = "\(operation) atom '\(id)'"
        guard let kind = AtomKind(rawValue: raw.kind) else {
            throw .descriptor(location: here, issue: "unknown atom kind \(raw.kind) (known: 1 text … 6 button)")
        }
        guard let inputType = AtomInputType(rawValue: raw.input_type) else {
            throw .descriptor(location: here, issue: "unknown input type \(raw.input_type) (known: 0 text … 4 date)")
        }
        if kind != .input, inputType != .text {
            throw .descriptor(location: here, issue: "input_type is set on a \(kind) atom; it belongs to input atoms only")
        }
        let flags = AtomFlags(rawValue: raw.flags)
        guard flags.isSubset(of: .known) else {
            throw .descriptor(location: here, issue: "unknown flags 0x\(String(raw.flags & ~AtomFlags.known.rawValue, radix: 16))")
        }
        if flags.contains(.submit), kind != .button {
            throw .descriptor(location: here, issue: "RBS_ATOM_FLAG_SUBMIT is only for buttons")
        }
        let minLength = Int(raw.min_length), maxLength = Int(raw.max_length)
        if maxLength > 0, minLength > maxLength {
            throw .descriptor(location: here, issue: "min_length \(minLength) is more than max_length \(maxLength)")
        }
        let caption = try shown(text(raw.caption, "caption", at: here), "caption", at: here)
        let hint = try shown(optionalText(raw.hint, "hint", at: here), "hint", at: here)
        let currency = try optionalText(raw.currency, "currency", at: here)
        if kind == .input, inputType == .amount {
            guard let currency else {
                throw .descriptor(location: here, issue: "an amount needs a currency (ISO 4217 code such as RUB)")
            }
            guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw .descriptor(location: here, issue: "currency '\(currency)' is not an ISO 4217 code such as RUB")
            }
        }
        let showIf = try optionalText(raw.show_if, "show_if", at: here)
        let validIf = try optionalText(raw.valid_if, "valid_if", at: here)
        let errorText = try shown(optionalText(raw.error_text, "error_text", at: here), "error_text", at: here)
        if validIf != nil, errorText == nil {
            throw .descriptor(location: here, issue: "valid_if is set but error_text is NULL: say what the person should fix")
        }
        let filter = try optionalText(raw.filter, "filter", at: here)
        if filter != nil, kind != .account {
            throw .descriptor(location: here, issue: "a filter is only for account atoms")
        }
        let defaultValue = try optionalText(raw.default_value, "default_value", at: here)
        let optionCount = Int(raw.option_count)
        var options: [AtomOption] = []
        if kind == .enumeration {
            guard optionCount >= 1 else { throw .descriptor(location: here, issue: "an enum atom has no options") }
            guard optionCount <= maxOptions else {
                throw .descriptor(location: here, issue: "option_count \(optionCount) is more than \(maxOptions)")
            }
            guard let array = raw.options else {
                throw .descriptor(location: here, issue: "options is NULL but option_count is \(optionCount)")
            }
            var values = Set<String>()
            for optionIndex in 0..<optionCount {
                let at = "\(here) option #\(optionIndex + 1)"
                let value = try text(array[optionIndex].value, "value", at: at)
                let title = try shown(text(array[optionIndex].title, "title", at: at), "title", at: at)
                guard values.insert(value).inserted else {
                    throw .descriptor(location: here, issue: "option value '\(value)' appears twice")
                }
                options.append(AtomOption(value: value, title: title))
            }
        } else if optionCount != 0 || raw.options != nil {
            throw .descriptor(location: here, issue: "options are only for enum atoms")
        }
        return AtomDescriptor(id: id, kind: kind, inputType: inputType, flags: flags, minLength: minLength,
                              maxLength: maxLength, caption: caption, hint: hint, currency: currency, showIf: showIf,
                              validIf: validIf, errorText: errorText, filter: filter, defaultValue: defaultValue,
                              options: options)
    }

    // MARK: - Extension tables

    /// The entries of the plugin's table for extension `id` (a struct of a count and a pointer to its first entry):
    /// nil when the plugin does not offer it or lists nothing; a count over `limit`, or a NULL `field` with a count,
    /// is refused at `location`.
    static func entries<Table, Entry>(of entry: UnsafePointer<rbs_plugin_entry_t>, _ id: String, as _: Table.Type,
                                      at location: String, limit: Int, field: String, count: KeyPath<Table, UInt32>,
                                      first: KeyPath<Table, UnsafePointer<Entry>?>) throws(PluginProblem) -> UnsafeBufferPointer<Entry>? {
        guard let getExtension = entry.pointee.get_extension, let raw = getExtension(id) else { return nil }
        let table = raw.assumingMemoryBound(to: Table.self).pointee
        let total = Int(table[keyPath: count])
        guard total <= limit else {
            throw .descriptor(location: location, issue: "count \(total) is more than \(limit)")
        }
        guard total > 0 else { return nil }
        guard let start = table[keyPath: first] else {
            throw .descriptor(location: location, issue: "\(field) is NULL but count is \(total)")
        }
        return UnsafeBufferPointer(start: start, count: total)
    }

    /// The operation an extension's entry names (`operation_id`), and its index in `operations`.
    static func operation(_ raw: UnsafePointer<CChar>?, in operations: [OperationDescriptor],
                          at location: String) throws(PluginProblem) -> (id: String, index: Int) {
        let id = try text(raw, "operation_id", at: location)
        guard let index = operations.firstIndex(where: { $0.id == id }) else {
            throw .descriptor(location: location, issue: "operation_id '\(id)' is not an operation of this plugin")
        }
        return (id, index)
    }

    // MARK: - Fields

    /// A required NUL-terminated UTF-8 string.
    static func text(_ pointer: UnsafePointer<CChar>?, _ field: String, at location: String) throws(PluginProblem) -> String {
        guard let value = try optionalText(pointer, field, at: location) else {
            throw .descriptor(location: location, issue: "\(field) is NULL")
        }
        guard !value.isEmpty else { throw .descriptor(location: location, issue: "\(field) is empty") }
        return value
    }

    /// `value`, a text a person is shown (a title, a caption, an option, a hint), refused when it holds a control
    /// character — an escape sequence or a carriage return would be run by the terminal that shows it (a cleared
    /// screen, a line written over: what is shown would not be what the plugin's author wrote). A `lines` text (the
    /// plugin's description) may hold line feeds.
    static func shown(_ value: String, _ field: String, at location: String, lines: Bool = false) throws(PluginProblem) -> String {
        if let control = ShownText.control(in: value, allowingLineFeeds: lines) {
            throw .descriptor(location: location, issue: "\(field) holds the control character \(control): a terminal would run it")
        }
        return value
    }

    static func shown(_ value: String?, _ field: String, at location: String, lines: Bool = false) throws(PluginProblem) -> String? {
        guard let value else { return nil }
        return try shown(value, field, at: location, lines: lines) as String
    }

    /// An optional NUL-terminated UTF-8 string: NULL is nil; invalid UTF-8 or an over-long string is an error.
    static func optionalText(_ pointer: UnsafePointer<CChar>?, _ field: String,
                             at location: String) throws(PluginProblem) -> String? {
        guard let pointer else { return nil }
        let length = strnlen(pointer, maxText + 1)
        guard length <= maxText else {
            throw .descriptor(location: location, issue: "\(field) is longer than \(maxText) bytes or not NUL-terminated")
        }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length).bindMemory(to: UInt8.self)
        guard let value = String(validating: bytes, as: UTF8.self) else {
            throw .descriptor(location: location, issue: "\(field) is not valid UTF-8")
        }
        return value
    }

    // MARK: - Shapes of ids

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return text.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    /// Lowercase words of letters, digits, '-' and '_' joined by dots: "pay.pp.quick", "card.block".
    static func isOperationID(_ text: String) -> Bool {
        let words = text.split(separator: ".", omittingEmptySubsequences: false)
        return !words.isEmpty && words.allSatisfy { word in
            !word.isEmpty && word.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
            }
        }
    }

    /// Reverse-DNS: at least two dot-separated words.
    static func isReverseDNS(_ text: String) -> Bool {
        isOperationID(text) && text.contains(".")
    }

    /// "1.2.3", optionally with a pre-release or build suffix.
    static func isVersion(_ text: String) -> Bool {
        let core = text.split(whereSeparator: { $0 == "-" || $0 == "+" }).first ?? ""
        let parts = core.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }
}
