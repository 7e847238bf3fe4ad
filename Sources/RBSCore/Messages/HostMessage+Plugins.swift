import Foundation
import RBSLedger

/// Why a plugin is not in service, why a run's plugin failed, and what a reload did — in the person's language.
/// English is each value's own `description` (what logs and `--json` carry); Russian is written here from the
/// typed facts, never from the English text. A descriptor's or an expression's detail (where in the descriptor,
/// what is wrong with it) is for the plugin's author, who reads the ABI's English headers: it is quoted as the
/// plugin reader wrote it, inside a Russian sentence that tells the operator what it means and what to do.
extension HostMessage {
    /// A file that is not in service: the file, then why and what to do.
    public static func describe(_ error: PluginLoadError, _ language: HostLanguage) -> String {
        language.pick(error.description, "\(error.path): \(describe(error.problem, language))")
    }

    public static func describe(_ problem: PluginProblem, _ language: HostLanguage) -> String {
        guard language == .ru else { return problem.description }
        switch problem {
        case .unreadable(let why): return "файл не читается (\(why)) — проверьте, что он есть и доступен для чтения"
        case .unreadableFolder(let why):
            return "папка плагинов не читается (\(why)) — проверьте --plugins или RBS_PLUGINS"
        case .notAFile(.directory): return "это папка, а не файл плагина — удалите её или переименуйте без .so"
        case .notAFile(.danglingLink(let target)):
            return "это символическая ссылка на \(target), которого нет — исправьте ссылку или удалите её"
        case .notAFile(.linkLoop): return "это символическая ссылка, ведущая сама на себя — исправьте ссылку или удалите её"
        case .notAFile(.special): return "это не обычный файл (канал, сокет или устройство) — удалите его"
        case .image(let image): return describe(image, language)
        case .dlopen(let why):
            return "dlopen не смог открыть файл: \(why) — проверьте библиотеки, которые нужны плагину (ldd)"
        case .noEntry:
            return "в файле нет точки входа \(PluginLoader.entrySymbol) — экспортируйте `RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void)`"
        case .entryReturnedNull:
            return "\(PluginLoader.entrySymbol)() вернула NULL — верните указатель на статическую rbs_plugin_entry_t"
        case .abiMajor(let plugin, let host):
            return "ABI плагина \(plugin.short) несовместим с ABI этого хоста \(host.short) — пересоберите плагин с rbs_plugin.h \(host.major).x"
        case .missingFeature(let feature, let plugin, let host):
            return "плагину нужно \(feature), а этот хост (ABI \(host.short)) этого не предлагает; плагин собран с ABI \(plugin.short) — обновите rbs-host или возьмите версию плагина, которой \(feature) не нужно"
        case .descriptor(let location, let issue):
            return "ошибка в описании плагина (дескрипторе) — плагин собран неверно, передайте его автору: «\(location): \(issue)»"
        case .missingSymbol(let location, let symbol):
            return "плагин не экспортирует функцию «\(symbol)», на которую ссылается его описание («\(location)») — автору плагина: экспортируйте её с RBS_EXPORT (или @_cdecl в Swift)"
        case .expression(let location, let issue):
            return "ошибка в выражении формы — плагин собран неверно, передайте его автору: «\(location): \(issue)»"
        case .duplicatePlugin(let id, let otherPath):
            return "идентификатор плагина «\(id)» уже занят файлом \(otherPath) — удалите один из двух файлов"
        case .duplicateOperation(let id, let otherPath):
            return "операцию «\(id)» уже предлагает \(otherPath) — дайте операции другой идентификатор или удалите один из плагинов"
        case .initFailed: return "init() плагина отказалась запускаться — причина в строках журнала плагина выше"
        case .workerFailed(let why):
            return "рабочий процесс плагина не запустил его: \(why)"
        case .quarantined(let reason):
            return "плагин на карантине: его рабочий процесс раз за разом падает, операции не открываются до замены файла (\(reason))"
        case .scanFailed(let failure): return describe(failure, language)
        case .untrusted(let refusal): return describe(refusal, language)
        case .downgradeFromLastRun(let id, let from, let to):
            return "это версия \(to) плагина \(id), ниже версии \(from), которая последней работала с этой папкой данных: понижение версии запрещено — чтобы откатиться намеренно, разрешите его по имени (`rbs-host plugin allow-downgrade \(id)` и запустите снова, или `reload --allow-downgrade \(id)` в REPL), иначе положите на её место версию \(from) или новее"
        case .downgrade(let id, let from, let to):
            return "это версия \(to) плагина \(id), ниже работающей версии \(from): понижение версии запрещено — чтобы откатиться намеренно, разрешите его по имени (`reload --allow-downgrade \(id)` в REPL, `rbs-host plugin allow-downgrade \(id)` для следующего запуска или перезагрузки), иначе положите на её место версию \(from) или новее"
        }
    }

    public static func describe(_ problem: ELFImage.Problem, _ language: HostLanguage) -> String {
        guard language == .ru else { return problem.description }
        return switch problem {
        case .empty: "файл пуст — пересоберите плагин"
        case .notELF: "это не ELF-файл — плагин — это разделяемая библиотека, собранная `cc -shared` или как dynamic library"
        case .notSharedObject(let type): "это ELF-файл типа \(type), а не разделяемая библиотека — соберите его с -shared"
        case .wrongClass: "это не 64-битный ELF-файл с порядком байтов little-endian — соберите плагин для этой машины"
        case .wrongMachine(let found, let expected):
            "собран для машины ELF \(found), а этот хост — \(expected): соберите плагин для этой машины"
        case .truncated(let what, let needs, let size):
            "ELF-файл обрезан: его \(elfPart(what)) кончается на байте \(needs), а в файле \(size) байт — скопируйте или пересоберите его целиком"
        }
    }

    /// The part of an ELF file `ELFImage` names in English.
    private static func elfPart(_ what: String) -> String {
        switch what {
        case "header": "заголовок"
        case "program header table": "таблица заголовков программы"
        case "section header table": "таблица заголовков секций"
        case let segment where segment.hasPrefix("segment "): "сегмент \(segment.dropFirst("segment ".count))"
        default: "часть «\(what)»"
        }
    }

    public static func describe(_ failure: ScanFailure, _ language: HostLanguage) -> String {
        guard language == .ru else { return failure.description }
        let notRetried = " — плагин не загружается, пока файл не изменится"
        return switch failure {
        case .refused(let problem): describe(problem, language)
        case .crashed(let signal):
            "проверка файла упала (сигнал \(signal): \(ChildProcessScanner.signalName(signal)))" + notRetried
        case .hung(let timeout): "проверка файла зависла: нет ответа за \(seconds(timeout)) — процесс остановлен" + notRetried
        case .exited(let status): "проверка файла завершилась с кодом \(status), не ответив" + notRetried
        case .couldNotStart(let reason): "проверку файлов не удалось запустить: \(reason)" + notRetried
        case .stoppedBefore: "проверка файлов остановилась, не дойдя до этого файла"
        case .noAnswer: "проверка файлов ничего не ответила об этом файле"
        }
    }

    /// A duration as a Russian reader writes it: "5 с", "0,5 с".
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%g", value).replacingOccurrences(of: ".", with: ",") + " с"
    }

    public static func describe(_ refusal: TrustRefusal, _ language: HostLanguage) -> String {
        guard language == .ru else { return refusal.description }
        func sign(_ path: String) -> String { "`rbs-host plugin sign \(path) --key КЛЮЧ`" }
        func item(_ item: TrustRefusal.Item) -> String {
            switch item {
            case .pluginFile: "файл плагина"
            case .pluginFolder(let path): "папку плагинов \(path)"
            }
        }
        return switch refusal {
        case .notSigned(let path):
            "не подписан — подпишите его: \(sign(path)), и доверьте этот ключ: `rbs-host trust add`; или запустите с --dev"
        case .unusableSignature(.io(let path, let reason)):
            "файл подписи \(path) не читается (\(reason)) — проверьте путь и права; или запустите с --dev"
        case .unusableSignature(.malformedSignature(let path, let reason)):
            "\(path) — не подпись плагина (\(reason)): подпишите плагин заново (`rbs-host plugin sign`), или запустите с --dev"
        case .unusableSignature(let error):
            "файл подписи нельзя использовать (\(error.description)) — или запустите с --dev"
        case .badSignature(let path, let signaturePath):
            "подпись в \(signaturePath) не сходится (повреждена или подделана) — подпишите плагин заново: \(sign(path)), или запустите с --dev"
        case .unreadableTrustedKeys(let error):
            "не читаются доверенные ключи: \(error.description)"
        case .untrustedKey(let key):
            "подписан ключом \(key), которому нет доверия — если вы доверяете его издателю, выполните `rbs-host trust add \(key)`; или запустите с --dev"
        case .untrustedSharedKey(let key):
            "подписан ключом \(key), которому нет доверия — если вы доверяете его издателю, выполните `rbs-host trust add \(key)` с --database этого хоста (ключи общей базы — ключи всех хостов); или запустите с --dev"
        case .changedAfterSigning(let path, let file, let signed):
            "изменён после подписи (SHA-256 файла \(file.prefix(16))…, подпись — для \(signed.prefix(16))…) — пересоберите его и подпишите заново: \(sign(path)), или запустите с --dev"
        case .notVerifiedBeforeOpening:
            "подпись не проверена до открытия файла — запустите с установленной проверкой подписи"
        case .signedForAnother(let path, let signedID, let signedVersion, let id, let version):
            "подпись дана плагину «\(signedID)» \(signedVersion), а в файле «\(id)» \(version) — подпишите его заново: \(sign(path)), или запустите с --dev"
        case .writableByOthers(let what, let path, let mode):
            "в \(item(what)) могут писать другие пользователи (права \(String(mode, radix: 8))): любой мог бы подменить код, который выполняет хост, поэтому он не загружается даже с --dev — выполните `chmod go-w \(path)`"
        case .revokedKey(let key, let day, let reason):
            "подписан ключом \(key), отозванным \(day)\(reason.map { " (\($0))" } ?? ""): ничего подписанного им не загружается — попросите у издателя плагин, подписанный его новым ключом"
        case .expiredKey(let key, let lastDay):
            "подписан ключом \(key), доверие к которому кончилось после \(lastDay) (UTC) — если вы по-прежнему доверяете издателю, продлите его: `rbs-host trust add \(key) --expires ГГГГ-ММ-ДД`"
        case .outsideKeyScope(let key, let id, let ids):
            "подписан ключом \(key), которому доверено только \(ids.joined(separator: ", ")), а не «\(id)» — ключ подписывает только доверенные ему идентификаторы; расширьте доверие (`rbs-host trust add \(key) --ids ШАБЛОН`), если «\(id)» принадлежит этому издателю"
        case .ownedByAnother(let what, let owner):
            "\(item(what).capitalizedFirst) владеет другой пользователь (uid \(owner)), который может её изменить: она не загружается даже с --dev — передайте её себе или root (chown)"
        }
    }

    /// What a reload did to one file, in `language`.
    public static func describe(_ report: ReloadReport, _ language: HostLanguage) -> String {
        guard language == .ru else { return report.description }
        let took = String(format: "%.1f мс", report.milliseconds)
        let name = report.pluginID ?? report.path
        switch report.change {
        case .added: return "добавлен \(name) \(report.newVersion ?? "") (\(report.path)) за \(took)"
        case .updated: return "перезагружен \(name) \(report.oldVersion ?? "?") → \(report.newVersion ?? "?") за \(took)"
        case .removed: return "удалён \(name) \(report.oldVersion ?? ""): его операции сняты"
        case .failed:
            let why = report.problem.map { describe($0, language) } ?? report.error ?? report.path
            return why + (report.oldVersion.map { " — в работе остаётся версия \($0)" } ?? "")
        }
    }

    /// A run's plugin call that did not come back normally. The cause ("killed by SIGSEGV", a crash's own last
    /// words) is the worker's technical account, quoted as the host recorded it.
    public static func describe(_ fault: PluginFault, _ language: HostLanguage) -> String {
        guard language == .ru else { return fault.description }
        guard fault.endsModule else {
            return "плагин \(fault.plugin), операция \(fault.operation): \(fault.call) не выполнена (\(fault.cause)) — подробности в журнале"
        }
        return "плагин \(fault.plugin), операция \(fault.operation): \(fault.call) — сбой рабочего процесса плагина (\(fault.cause)); операция прервана, ничего не подписано и не проведено"
    }

    /// Why a plugin file is not in service (`plugins`, the lines after a start), in `language`.
    public static func describe(_ record: PluginRecord, _ language: HostLanguage) -> String? {
        guard let problem = record.problem else { return record.error }
        // A file refused while its plugin's older version stays in service (not a quarantine, which ends its service).
        if record.status != .failed, let version = record.version {
            guard language == .ru else { return record.error }
            return describe(problem, language) + " — в работе остаётся версия \(version)"
        }
        return describe(problem, language)
    }
}

extension HostMessage {
    /// What a first start (`init`, `keys init` in a fresh folder) did, in `language`.
    public static func describe(_ creation: Ledger.Creation, _ language: HostLanguage) -> String {
        guard language == .ru else { return creation.description }
        func end(_ end: Ledger.Creation.Note.End) -> String {
            end.sequence == 0 ? "пустой журнал" : "запись журнала \(end.sequence) (хеш \(end.hash.prefix(12))…)"
        }
        return creation.notes.map { note in
            switch note {
            case .created(let ledger, let path): "создан новый журнал \(ledger) в \(path)"
            case .adopted(let path, let ledger, let last): "\(path) принят как есть: журнал \(ledger), \(end(last))"
            case .movedAside(let path, let aside): "\(path), в котором не было журнала, перенесён в \(aside)"
            case .joined(let ledger, let path): "открыт журнал \(ledger) в \(path), который только что создал другой хост"
            case .previousLedgerGivenUp(let ledger, let last): "прежний журнал \(ledger) (до: \(end(last))) оставлен"
            case .entriesGivenUp(let from, let to): "записи журнала \(from)–\(to), сделанные раньше, оставлены"
            }
        }.joined(separator: "; ")
    }
}

extension String {
    /// The text with its first letter upper-case (a Russian sentence that starts with a noun made for the middle of one).
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
