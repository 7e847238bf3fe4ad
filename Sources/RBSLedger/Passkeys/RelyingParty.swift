import Crypto
import Foundation

/// Who the passkeys are for: the server's origin (`http://localhost:8080`) and the relying-party id browsers bind
/// them to (the origin's host). An assertion made for another origin or id is refused.
public struct RelyingParty: Sendable, Hashable {
    /// Scheme, host and port, exactly as a browser writes it in clientDataJSON.
    public let origin: String
    /// The origin's host.
    public let id: String

    /// Refuses an origin that is not `http(s)://HOST[:PORT]` with nothing after it.
    public init(origin: String) throws(PasskeyError) {
        guard let url = URL(string: origin), let scheme = url.scheme, scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.path.isEmpty, url.query == nil, url.fragment == nil, !origin.hasSuffix("/")
        else {
            throw .malformed("'\(origin)' is not an origin: write it as http(s)://HOST[:PORT] with no path, e.g. http://localhost:8080")
        }
        self.origin = origin
        id = host
    }

    /// SHA-256 of ``id``: what authenticatorData starts with.
    var idHash: Data { Data(SHA256.hash(data: Data(id.utf8))) }
}
