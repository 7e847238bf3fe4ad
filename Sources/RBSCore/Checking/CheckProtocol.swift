/// The lines the checking child (`rbs-host plugin check-child`) writes to its protocol pipe, one per line:
/// ```
/// begin <index> <name>     before check <index> runs (so the parent knows which one died or hung)
/// step <text>              what the running check is doing now (named in a crash or hang report)
/// pass <index> <detail>    the check passed
/// fail <index> <reason>    the check failed
/// end                      every check ran
/// ```
public enum CheckProtocol {
    /// One parsed line.
    public enum Line: Equatable, Sendable {
        case begin(index: Int, name: String)
        case step(String)
        case pass(index: Int, detail: String)
        case fail(index: Int, reason: String)
        case end
    }

    /// The text of a line (newlines inside are flattened so one message is one line).
    public static func render(_ line: Line) -> String {
        func flat(_ text: String) -> String { text.replacingOccurrences(of: "\n", with: " ") }
        switch line {
        case .begin(let index, let name): return "begin \(index) \(flat(name))"
        case .step(let text): return "step \(flat(text))"
        case .pass(let index, let detail): return "pass \(index) \(flat(detail))"
        case .fail(let index, let reason): return "fail \(index) \(flat(reason))"
        case .end: return "end"
        }
    }

    /// Parses a line; nil for anything else (ignored).
    public static func parse(_ text: String) -> Line? {
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard let verb = parts.first else { return nil }
        if verb == "end" { return .end }
        if verb == "step" { return .step(parts.dropFirst().joined(separator: " ")) }
        guard parts.count >= 2, let index = Int(parts[1]) else { return nil }
        let rest = parts.count > 2 ? parts[2] : ""
        switch verb {
        case "begin": return .begin(index: index, name: rest)
        case "pass": return .pass(index: index, detail: rest)
        case "fail": return .fail(index: index, reason: rest)
        default: return nil
        }
    }
}
