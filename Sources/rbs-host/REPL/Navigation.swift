/// How a module is shown over the one below it (seed 004's Transitioning).
enum Transition {
    /// A new screen on the stack (an operation's form over the list).
    case push
    /// Modal over the current screen; cancelling returns to it as it was (review and signing).
    case present
    /// Inside the current screen (an account picker inside a form).
    case embed
}

/// The stack of modules on screen, for the breadcrumb: `Payments › Quick payment › Sign`.
final class Navigation {
    private(set) var stack: [(title: String, transition: Transition)] = []

    func enter(_ title: String, _ transition: Transition) { stack.append((title, transition)) }
    func leave() { _ = stack.popLast() }

    var breadcrumb: String { stack.map(\.title).joined(separator: " › ") }
}

/// What a module came to (seed 004's typed output).
enum ModuleOutput {
    case done(String)
    case cancelled
    case failed(String)
}
