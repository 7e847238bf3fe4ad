import Foundation

/// What `plugin pack|install|uninstall|history` tell a person, and why a package is refused — in the person's
/// language. English is each value's own `description`; Russian is written here from the typed facts.
extension HostMessage {
    public static func describe(_ error: PackageError, _ language: HostLanguage) -> String {
        guard language == .ru else { return error.description }
        switch error {
        case .io(let path, let reason): return "\(path): \(reason) — проверьте путь и права"
        case .notAPackage(let path):
            return "\(path) — не пакет плагина (он не начинается с «\(PluginPackage.header)») — укажите файл, сделанный `rbs-host plugin pack`"
        case .truncated(let path, let entry, let size):
            return "\(path) обрезан: он кончается на байте \(size), не дойдя до конца записи «\(entry)» — скопируйте или скачайте пакет целиком заново"
        case .malformed(let path, let offset, let reason):
            return "\(path) повреждён на байте \(offset) (\(reason)) — скопируйте или скачайте пакет заново или попросите у издателя новый"
        case .missingEntry(let path, let entry):
            return "в \(path) нет записи «\(entry)» — он сделан не `rbs-host plugin pack`; попросите у издателя новый пакет"
        case .unusableSignature(let path, let entry, let trust):
            return "\(path): подпись «\(entry)» нельзя использовать (\(trust.description))"
        case .badSignature(let path, let entry):
            return "\(path): подпись «\(entry)» не сходится (повреждена или подделана) — не устанавливайте его; попросите пакет у издателя заново"
        case .damaged(let path, let entry):
            return "\(path): \(entry.map { "его объект «\($0)» —" } ?? "его содержимое —") не то, что было подписано (изменён или повреждён после подписи) — не устанавливайте его; скопируйте или скачайте пакет заново"
        case .untrustedKey(let path, let key, let shared):
            return "\(path) подписан ключом \(key), которому нет доверия — если вы доверяете его издателю, выполните `rbs-host trust add \(key) --ids ПРЕФИКС.*`\(shared ? " с --database этого хоста (ключи общей базы — ключи всех хостов)" : "") и установите снова (--dev не меняет того, что принимает install)"
        case .untrusted(let path, let refusal): return "\(path): \(describe(refusal, language))"
        case .malformedManifest(let path, let reason):
            return "\(path): его manifest.json не читается (\(reason)) — попросите у издателя пакет, сделанный `rbs-host plugin pack`"
        case .signedForAnother(let path, let entry, let signedID, let signedVersion, let id, let version):
            return "\(path): «\(entry)» подписан для «\(signedID)» \(signedVersion), а в манифесте «\(id)» \(version) — попросите издателя собрать пакет заново"
        case .wrongArchitecture(let path, let host, let offered):
            return "в \(path) плагин для \(offered.isEmpty ? "ни одной архитектуры" : offered.joined(separator: ", ")), а не для архитектуры этого хоста \(host) — попросите у издателя пакет с объектом \(host) (`plugin pack --so \(host)=ПУТЬ`)"
        case .missingObject(let path, let architecture, let entry):
            return "\(path): манифест называет объект \(architecture) «\(entry)», которого в пакете нет в подписанном виде — попросите издателя собрать пакет заново"
        case .missingService(let path, let service, let host):
            return "\(path) использует сервис \(service), которого этот хост (ABI \(host)) не предоставляет — обновите rbs-host или попросите у издателя версию без него"
        case .abiOutOfRange(let path, let min, let below, let host):
            let newer = PackageManifest.ABIRange.parse(host).flatMap { ours in PackageManifest.ABIRange.parse(min).map { ours < $0 } } ?? false
            return "\(path) нужен хост с ABI от \(min) до \(below) (не включая); ABI этого хоста — \(host) — "
                + (newer ? "обновите rbs-host или установите версию плагина, собранную для ABI \(host)" : "попросите у издателя версию, собранную для ABI \(host)")
        case .descriptorMismatch(let path, let architecture, let manifestID, let manifestVersion, let id, let version):
            return "\(path): в манифесте «\(manifestID)» \(manifestVersion), а дескриптор его объекта \(architecture) говорит «\(id)» \(version) — попросите издателя собрать пакет заново из нужной сборки"
        case .unloadable(let path, let architecture, let problem):
            return "\(path): его объект \(architecture) не открывается: \(describe(problem, language))"
        case .downgrade(let path, let id, let installed, let offered):
            return "\(path) — версия \(offered) плагина \(id), ниже установленной или последней работавшей здесь версии \(installed): понижение версии запрещено — чтобы откатиться намеренно, установите его с --allow-downgrade"
        case .publishedDowngrade(let path, let id, let floor, let offered):
            return "\(path) — версия \(offered) плагина \(id), ниже версии \(floor), опубликованной клиентам этого реестра или "
                + "последней работавшей здесь: понижение версии запрещено — чтобы откатить клиентов намеренно, опубликуйте её с --allow-downgrade"
        case .notInstalled(let id, let folder):
            return "плагин «\(id)» не установлен в \(folder) (ни один подписанный файл там его не называет) — см. `rbs-host plugin history` и `rbs-host plugins`"
        case .badObjectOption(let text):
            return "--so «\(text)»: укажите АРХИТЕКТУРА=ПУТЬ, архитектура — одна из \(PackageArchitecture.known.joined(separator: ", ")) (например --so \(PackageArchitecture.host)=build/plugin.so)"
        case .objectArchitecture(let path, let given, let found):
            return "\(path) \(found.map { "собран для \($0)" } ?? "— не 64-битный разделяемый объект ELF"), а указан как --so \(given)=\(path) — дайте каждой архитектуре её собственную сборку"
        case .duplicateArchitecture(let architecture):
            return "--so \(architecture)=… указан дважды — по одному объекту на архитектуру"
        case .noHostObject(let host):
            return "нет --so \(host)=ПУТЬ: нужен объект для архитектуры этого хоста — из него читаются идентификатор и версия плагина"
        case .badText(let option, let text):
            return "--\(option) «\(text.prefix(40))»: укажите ЯЗЫК=ТЕКСТ (например --\(option) ru=…)"
        case .incompleteTexts(let language?, let missing):
            return "у текстов на «\(language)» нет \(missing == "title" ? "заголовка" : "описания") — дайте и --title \(language)=…, и --description \(language)=…"
        case .incompleteTexts(nil, _):
            return "нет текстов: дайте заголовок и описание на каждом языке (--title ru=… --description ru=…)"
        case .badABIRange(let min, let below):
            return "диапазон ABI хоста от \(min) до \(below) — не MAJOR.MINOR до большего MAJOR.MINOR (например --abi-min 1.2 --abi-below 2.0)"
        case .signing(let trust): return trust.description
        }
    }

    /// What `plugin pack` wrote.
    public static func packed(_ manifest: PackageManifest, file: String, key: String, _ language: HostLanguage) -> String {
        let architectures = manifest.objects.keys.sorted().joined(separator: ", ")
        let languages = manifest.texts.keys.sorted().joined(separator: ", ")
        return language.pick(
            "packed \(manifest.id) \(manifest.version) (\(architectures); texts: \(languages); host ABI \(manifest.hostABI.min) to below \(manifest.hostABI.below)) → \(file), signed with key \(key)",
            "упакован \(manifest.id) \(manifest.version) (\(architectures); тексты: \(languages); ABI хоста от \(manifest.hostABI.min) до \(manifest.hostABI.below), не включая) → \(file), подписан ключом \(key)")
    }

    /// What `plugin install` or `plugin uninstall` did.
    public static func describe(_ change: PackageChange, _ language: HostLanguage) -> String {
        let entry = change.entry
        if change.unchanged {
            return language.pick("\(entry.id) \(entry.version) is already installed as \(entry.file): nothing changed",
                                 "\(entry.id) \(entry.version) уже установлен как \(entry.file): ничего не изменилось")
        }
        let from = entry.previousVersion.map { language.pick(" (was \($0))", " (была \($0))") } ?? ""
        switch entry.action {
        case .install:
            return language.pick("installed \(entry.id) \(entry.version)\(from) as \(entry.file)",
                                 "установлен \(entry.id) \(entry.version)\(from) как \(entry.file)")
        case .downgrade:
            return language.pick("installed \(entry.id) \(entry.version)\(from) as \(entry.file): a downgrade, allowed by --allow-downgrade",
                                 "установлен \(entry.id) \(entry.version)\(from) как \(entry.file): понижение версии, разрешённое --allow-downgrade")
        case .uninstall:
            return language.pick("uninstalled \(entry.id) \(entry.version): removed \(entry.file) and its signature",
                                 "удалён \(entry.id) \(entry.version): убраны \(entry.file) и его подпись")
        }
    }

    /// `plugin history`: one line an entry, oldest first.
    public static func render(_ entries: [PluginHistory.Entry], _ language: HostLanguage) -> String {
        guard !entries.isEmpty else {
            return language.pick("no plugin has been installed or uninstalled on this data folder",
                                 "в этой папке данных плагины не устанавливались и не удалялись")
        }
        return entries.map { entry in
            let action = switch entry.action {
            case .install: language.pick("install", "установка")
            case .downgrade: language.pick("downgrade", "откат")
            case .uninstall: language.pick("uninstall", "удаление")
            }
            let from = entry.previousVersion.map { " (\(language.pick("was", "была")) \($0))" } ?? ""
            let publisher = entry.publisher.map { ", \(language.pick("publisher", "издатель")) \($0)" } ?? ""
            let key = entry.publisherKey.map { ", \(language.pick("key", "ключ")) \($0.prefix(16))…" } ?? ""
            return "\(entry.time)  \(action)  \(entry.id) \(entry.version)\(from) — \(entry.by)\(publisher)\(key)"
        }.joined(separator: "\n")
    }

    /// Lines of the history file that are not entries.
    public static func unreadableHistory(_ path: String, lines: [Int], _ language: HostLanguage) -> String {
        let numbers = lines.map(String.init).joined(separator: ", ")
        return language.pick("\(path): lines \(numbers) are not history entries and are passed over",
                             "\(path): строки \(numbers) — не записи истории, они пропущены")
    }

    public static func historyWarningLabel(_ language: HostLanguage) -> String {
        language.pick("warning:", "предупреждение:")
    }
}
