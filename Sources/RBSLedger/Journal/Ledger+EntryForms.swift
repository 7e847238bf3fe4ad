import Foundation
import RBSMoney

extension Ledger {
    /// The values the person entered in the form journal entry `sequence` was signed from (what `repeat N` opens
    /// again), or `nil` when none were recorded: an entry journaled before forms were recorded, or a document
    /// signed without a form.
    public func form(ofEntry sequence: Int64) throws(LedgerError) -> FormTemplate? {
        let row = try database.read { db in
            try db.row("SELECT operation, plugin_version, form_values FROM entry_forms WHERE journal_seq = ?", sequence)
        }
        guard let row else { return nil }
        do {
            let text: String = try row["form_values"]
            let values = try JSONDecoder().decode([FormTemplate.Value].self, from: Data(text.utf8))
            return FormTemplate(operation: try row["operation"], pluginVersion: try row["plugin_version"], values: values)
        } catch {
            throw .unreadableEntry(sequence: sequence, detail: "its recorded form values cannot be read: \(error)")
        }
    }

    /// Records `form` as the one journal entry `sequence` was signed from, inside the transaction that journaled
    /// it. An entry that already has its form (a repeated submission answered by its first entry) keeps it.
    static func record(_ form: FormTemplate, sequence: Int64, in db: any SQLTransaction) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let values = String(decoding: try encoder.encode(form.values), as: UTF8.self)
        try db.execute("""
            INSERT INTO entry_forms (journal_seq, operation, plugin_version, form_values) VALUES (?, ?, ?, ?)
            ON CONFLICT (journal_seq) DO NOTHING
            """, sequence, form.operation, form.pluginVersion, values)
    }
}

extension Ledger {
    /// The form of journal entry `sequence` for `repeat N`: its operation and the values entered then.
    public func repeatableForm(ofEntry sequence: Int64) throws(EntryFormError) -> FormTemplate {
        do {
            if let form = try form(ofEntry: sequence) {
                // Every front end's repeat opens this form: one of another operation than the entry signed is refused
                // here (what `verify` reports too); the values themselves are compared where a repeat signs unreviewed.
                if let entry = try journal.entry(sequence), let signed = try? CanonicalEncoding.decode(entry.document),
                   form.operation != signed.operation || form.pluginVersion != signed.pluginVersion {
                    throw EntryFormError.altered(sequence, recorded: "\(form.operation) \(form.pluginVersion)",
                                                 signed: "\(signed.operation) \(signed.pluginVersion)")
                }
                return form
            }
            let last = try database.read { db in try db.value(Int64.self, "SELECT MAX(seq) FROM journal") } ?? 0
            throw sequence >= 1 && sequence <= last ? EntryFormError.noForm(sequence) : .noEntry(sequence, last: last)
        } catch let error as EntryFormError {
            throw error
        } catch let error as LedgerError {
            throw .storage(error)
        } catch {
            throw .storage(.database(path: database.place, detail: "\(error)"))
        }
    }
}

extension Ledger {
    /// Throws ``LedgerError/repeatAltered(sequence:field:signed:now:)`` when the document a repeat of entry `sequence`
    /// built from its recorded form alone (nothing changed by the person) is not the payment the entry signed: another
    /// operation, or — by the same plugin version — any field but the ones a day changes (a conversion's rate and
    /// credited amount, a fee), or — by another version, which may build its document otherwise — another debit or
    /// payee account, payee, bank, INN, amount or currency. The recorded form (`entry_forms`) is not covered by the
    /// journal's hashes; a changed row would make `repeat N` — which `rbs-host repeat N --code` signs without a review —
    /// pay an account, or with a purpose, nobody chose.
    public func checkRepeat(of sequence: Int64, operation: String, pluginVersion: String,
                            fields: [(key: String, value: String)]) throws(LedgerError) {
        guard let entry = try journal.entry(sequence), let signed = try? CanonicalEncoding.decode(entry.document) else { return }
        guard operation == signed.operation else {
            throw .repeatAltered(sequence: sequence, field: "the operation", signed: signed.operation, now: operation)
        }
        let built = Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }).filter { !$0.value.isEmpty }
        let before = Dictionary(signed.fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }).filter { !$0.value.isEmpty }
        let money: [PaymentField] = [.debitAccount, .creditAccount, .payeeName, .payeeBank, .payeeTaxID, .amount, .currency]
        let volatile = Set(Conversion.Key.all + [PaymentField.fee.key, PaymentField.feeCurrency.key])
        let keys = pluginVersion == signed.pluginVersion
            ? Set(built.keys).union(before.keys).subtracting(volatile).sorted()
            : money.map(\.key)
        for key in keys {
            let (was, now) = (before[key], built[key])
            if key == PaymentField.amount.key, let was, let now, let a = DecimalText.parse(was), let b = DecimalText.parse(now), a == b {
                continue
            }
            guard was == now else {
                let field = PaymentField.allCases.first { $0.key == key }?.meaning ?? "the field \(key)"
                throw .repeatAltered(sequence: sequence, field: field, signed: was ?? "none", now: now ?? "none")
            }
        }
    }
}

