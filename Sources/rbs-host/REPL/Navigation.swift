/// The stack of modules on screen, for the breadcrumb: `Payments › Quick payment › Sign`.
final class Navigation {
    private(set) var stack: [String] = []

    func enter(_ title: String) { stack.append(title) }
    func leave() { _ = stack.popLast() }

    var breadcrumb: String { stack.joined(separator: " › ") }
}

/// What a module came to (seed 004's typed output).
enum ModuleOutput: Equatable {
    case done(String)
    case cancelled
    /// The sign step did not start: the core would refuse the document (said already); back to the form.
    case refused
    case failed(String)
}
