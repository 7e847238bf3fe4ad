/// Why a plugin file was not loaded: one line that names the file, what is wrong and what to do.
public struct PluginLoadError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The plugin file, as the person named it (relative to the working directory when it was given that way).
    public let path: String
    public let problem: PluginProblem

    public init(path: String, problem: PluginProblem) {
        self.path = path
        self.problem = problem
    }

    public var description: String { "\(path): \(problem)" }
}

