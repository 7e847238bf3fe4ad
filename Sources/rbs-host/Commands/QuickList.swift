import RBSCore

/// `rbs-host list`, read without ArgumentParser when its arguments are only `--json`, `--dev`, `--plugins DIR` and
/// `--data DIR` (each at most once, `--plugins=DIR` too): the command scripts and the benchmark start most often.
/// Anything else (`--help`, another option, a repeated one, a value that looks like an option) is left to
/// ArgumentParser, which reads it as it always has, with its own messages.
struct QuickList: HostOptions {
    var plugins: String?
    var data: String?
    var dev = false
    var json = false
    /// `list` opens no ledger, so a plain `list` takes no `--database` (RBS_DATABASE is not needed either).
    var database: String? { nil }
    var isolation: IsolationSettings.Mode? { nil }
    var workerTimeout: Double? { nil }
    var lang: HostLanguage? { nil }

    /// The options of `arguments` (the command line after the program name), or nil when ArgumentParser should read
    /// them.
    init?(arguments: [String]) {
        guard arguments.first == "list" else { return nil }
        var seen: Set<String> = []
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var name = argument, value: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard seen.insert(name).inserted else { return nil }
            switch name {
            case "--json", "--dev":
                guard value == nil else { return nil }
                if name == "--json" { json = true } else { dev = true }
            case "--plugins", "--data":
                if value == nil, index < arguments.count {
                    value = arguments[index]
                    index += 1
                }
                guard let value, !value.isEmpty, !value.hasPrefix("-") else { return nil }
                if name == "--plugins" { plugins = value } else { data = value }
            default:
                return nil
            }
        }
    }
}
