/// What went wrong looking a service up. A missing service is an error the caller handles, never a crash.
public enum ServiceError: Error, CustomStringConvertible, Sendable, Equatable {
    case missing(String)
    case malformedID(String)
    case taken(id: String, owner: String)

    public var description: String {
        switch self {
        case .missing(let name): "no service \(name) is registered"
        case .malformedID(let id): "service id '\(id)' is not of the form vendor.name/N (e.g. rbs.accounts/1)"
        case .taken(let id, let owner): "service id '\(id)' is already registered by \(owner)"
        }
    }
}
