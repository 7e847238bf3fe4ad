/// The outcome of one check of `rbs-host plugin check`.
public struct CheckResult: Sendable, Equatable, Codable {
    public var name: String
    public var passed: Bool
    /// What was checked (a pass) or what went wrong and what to do (a failure).
    public var detail: String

    public init(name: String, passed: Bool, detail: String) {
        self.name = name
        self.passed = passed
        self.detail = detail
    }
}
