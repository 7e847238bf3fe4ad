import Crypto
import Foundation
import RBSLedger

/// The one way the host names a plugin file's content: SHA-256 as lowercase hex. The loader's unique copies, the
/// manifest cache's fingerprints and plugin signatures must all agree on it.
enum ContentHash {
    static func sha256<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        Hex.encode(SHA256.hash(data: bytes))
    }
}
