import RBSLedger

extension Hex {
    /// Whether `text` is the hex of an Ed25519 public key (32 bytes).
    static func isPublicKey(_ text: String) -> Bool { text.utf8.count == 64 && decode(text) != nil }
}
