import Hummingbird
import NIOCore

/// The request context of `serve`: Hummingbird's core storage and the client's address (for rate limits and the
/// request log).
package struct APIContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The client's IP address, or "-" when the channel does not know it.
    package let remoteAddress: String

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "-"
    }
}
