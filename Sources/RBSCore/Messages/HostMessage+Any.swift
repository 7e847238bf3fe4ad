import Foundation
import RBSLedger

/// Any error the command line reports, in the person's language: the typed errors with Russian texts of their own are
/// said in Russian from their facts (never from the English text); every other error keeps its English description.
/// What `--lang ru` commands print (an English line under a Russian heading was the tester's finding).
extension HostMessage {
    public static func describe(any error: any Error, _ language: HostLanguage) -> String {
        guard language == .ru else { return String(describing: error) }
        switch error {
        case let error as LedgerError: return describe(error, language)
        case let error as CustomerError: return describe(error, language)
        case let error as EntryFormError: return describe(error, language)
        case let error as ReceiptError: return describe(error, language)
        case let error as RunError: return describe(error, language, listing: "rbs-host list")
        case let error as OneTimeCodeError: return describe(error, language)
        case let error as SecondSignatureError: return describe(error, language)
        default: return String(describing: error)
        }
    }

    public static func describe(_ error: CustomerError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        switch error {
        case .invalidName(let name):
            return "«\(name)» не может быть именем клиента: 1–64 латинские буквы (a–z, A–Z), цифры, «.», «-» или «_»"
        case .exists(let name):
            return "клиент или пользователь «\(name)» уже есть, или есть имя, отличающееся от него только регистром (см. `rbs-host customers list`)"
        case .unknown(let name): return "клиента с именем «\(name)» нет (см. `rbs-host customers list`)"
        case .awaitingSecondSignatures(let name, let entries):
            return "«\(name)» не удалён: " + (entries.count == 1 ? "запись журнала " : "записи журнала ")
                + entries.map(String.init).joined(separator: ", ") + (entries.count == 1 ? " ждёт" : " ждут")
                + " второй подписи, которую дают или отклоняют только пользователи клиента (`rbs-host customers pending \(name)`, "
                + "затем `customers approve` или `customers reject`); ничего не изменено"
        case .stepUp(let action, let refusal):
            return "\(action.text) требует текущего одноразового кода клиента: \(describe(refusal, language))"
        case .secondSigner(let refusal): return describe(refusal, language)
        case .storage(let error): return describe(error, language)
        case .passkeyInUse: return error.description
        }
    }

    public static func describe(_ error: EntryFormError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        switch error {
        case .noEntry(let sequence, let last):
            return last == 0 ? "записи журнала \(sequence) нет: журнал пуст"
                : "записи журнала \(sequence) нет: в журнале записи 1–\(last) (см. journal)"
        case .noForm(let sequence):
            return "у записи журнала \(sequence) нет сохранённых значений формы для повтора: она подписана раньше, чем "
                + "rbs-host стал их хранить, или не из формы — заполните операцию через run"
        case .altered(let sequence, let recorded, let signed):
            return "сохранённая форма записи журнала \(sequence) — \(recorded), а запись подписала \(signed): сохранённые значения "
                + "изменены после записи в журнал (запустите `rbs-host verify`) — заполните операцию через run"
        case .storage(let error): return describe(error, language)
        }
    }

    public static func describe(_ error: ReceiptError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        switch error {
        case .noEntry(let sequence, let count):
            return count == 0 ? "записи журнала \(sequence) нет: журнал пуст" : "записи журнала \(sequence) нет: в журнале записи 1–\(count)"
        case .notPosted(let sequence, let kind, _):
            let status = JournalEntry.Kind(rawValue: kind).map { HostMessage.statusWord($0, language) } ?? kind
            return "запись журнала \(sequence) — \(status), не проведена: квитанция есть только у проведённой (или принятой) "
                + "записи (см. `journal show \(sequence)`)"
        case .storage(let error): return describe(error, language)
        case .unreadable, .font: return error.description
        }
    }

    public static func describe(_ error: RunError, _ language: HostLanguage, listing: String) -> String {
        guard language == .ru else { return error.described(listing: listing) }
        switch error {
        case .unknownOperation(let id, let suggestion):
            return "операции «\(id)» нет" + (suggestion.map { " — может быть, «\($0)»? (см. `\(listing)`)" } ?? " — см. `\(listing)`")
        case .form, .ledger: return error.described(listing: listing)
        }
    }
}
