/// Who can make a service available that nobody registered yet: the plugin registry, which loads the listed plugin
/// that provides it. Called without any of the locator's locks held.
public protocol ServiceProvider: AnyObject, Sendable {
    /// Makes service `id` available if it can (registering its table), and returns when it has tried.
    func provide(serviceID id: String)
}
