import RBSLedger

/// What the staged-rollout commands say (`plugin publish`, `plugin rollout status|rollback`), in both languages.
extension HostMessage {
    public static func published(_ id: String, _ version: String, percent: Int, faultThreshold: Int, minimumRuns: Int,
                                 place: String, superseded: [String], _ language: HostLanguage) -> String {
        let rule = rollbackRule(faultThreshold: faultThreshold, minimumRuns: minimumRuns, language)
        var text = language.pick(
            "publishing \(id) \(version) to \(percent)% of customers (\(rule)); every host of \(place) follows at its next sync",
            "\(id) \(version) выпускается для \(percent)% клиентов (\(rule)); каждый хост \(place) подхватит его при следующей сверке")
        if !superseded.isEmpty {
            text += "\n" + language.pick("it replaces the rollout of \(superseded.joined(separator: ", "))",
                                         "он заменяет выпуск \(superseded.joined(separator: ", "))")
        }
        return text
    }

    /// `rollout status`, under the table: what rolls a rolling version back, as `plugin publish` said it.
    public static func rolloutLimit(_ id: String, _ version: String, faultThreshold: Int, minimumRuns: Int, _ language: HostLanguage) -> String {
        "\(id) \(version): " + rollbackRule(faultThreshold: faultThreshold, minimumRuns: minimumRuns, language)
    }

    /// The automatic rollback's rule (`--fault-threshold`, `--minimum-runs`), as `publish` and `rollout status` say it.
    private static func rollbackRule(faultThreshold: Int, minimumRuns: Int, _ language: HostLanguage) -> String {
        language.pick("rolled back if more than \(faultThreshold)% of its runs fault, after \(minimumRuns) runs",
                      "откат, если больше \(faultThreshold)% запусков кончатся сбоем, после \(minimumRuns) запусков")
    }

    public static func rolloutWidened(_ id: String, _ version: String, percent: Int, from: Int, _ language: HostLanguage) -> String {
        language.pick("\(id) \(version): now \(percent)% of customers (was \(from)%)",
                      "\(id) \(version): теперь \(percent)% клиентов (было \(from)%)")
    }

    public static func rolloutEnded(_ release: PluginReleases.Release, _ language: HostLanguage) -> String {
        let reason = release.reason.map { " (\($0))" } ?? ""
        return language.pick(
            "\(release.pluginID) \(release.version) is \(release.state == .rolledBack ? "rolled back" : "superseded")\(reason): it is not published again — publish a new version",
            "\(release.pluginID) \(release.version) \(release.state == .rolledBack ? "откачен" : "заменён")\(reason): повторно он не выпускается — выпустите новую версию")
    }

    public static func nothingPublished(_ place: String, _ language: HostLanguage) -> String {
        language.pick("nothing has been published on \(place)", "в \(place) ничего не выпускалось")
    }

    public static func rolloutHeader(_ language: HostLanguage) -> [String] {
        language == .ru ? ["ПЛАГИН", "ВЕРСИЯ", "ДОЛЯ", "СОСТОЯНИЕ", "КЛИЕНТЫ", "ЗАПУСКИ", "ПРОВЕДЕНО", "ОТКАЗЫ", "СБОИ"]
            : ["PLUGIN", "VERSION", "SHARE", "STATE", "CUSTOMERS", "RUNS", "POSTS", "REFUSALS", "FAULTS"]
    }

    /// A release's state as `plugin rollout status` shows it; nil: a version that was not published.
    public static func rolloutState(_ state: PluginReleases.State?, _ language: HostLanguage) -> String {
        switch state {
        case .rolling: language.pick("rolling", "выпускается")
        case .rolledBack: language.pick("rolled back", "откачен")
        case .superseded: language.pick("superseded", "заменён")
        case nil: language.pick("not published", "не выпускалась")
        }
    }

    public static func nothingRolling(_ id: String, place: String, _ language: HostLanguage) -> String {
        language.pick("no version of \(id) is rolling out on \(place)", "у \(id) нет выпускаемой версии в \(place)")
    }

    public static func rolledBack(_ release: PluginReleases.Release, _ language: HostLanguage) -> String {
        language.pick("\(release.pluginID) \(release.version) is rolled back: every host stops offering it at its next sync",
                      "\(release.pluginID) \(release.version) откачен: каждый хост перестанет предлагать его при следующей сверке")
    }
}
