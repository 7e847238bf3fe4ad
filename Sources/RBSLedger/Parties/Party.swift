import Foundation

/// Who acts on the ledger: the host's own signer (the data folder's key, made by `keys init --name`) or a customer of
/// the bank (any of its users, with the key the host keeps for them or a passkey).
///
/// Every signature names its key, and the core decides from the key alone whose accounts it may debit (see
/// ``EmbeddedBank``'s posting decision): a customer its own accounts, the host's signer the accounts of no customer,
/// and either of them one more account for each live ``Mandate``. Front ends only show a party its accounts.
public enum Party: Sendable, Hashable {
    /// The host's own signer, by its key id (nil before `keys init`: it has no key yet).
    case host(keyId: String?)
    /// A customer of `serve`, by its holder id (``Customer/holderId``).
    case customer(Int64)
}

/// A mandate: the key `keyId` (of `keyName`) may debit account `number`, which belongs to another party, from
/// `granted` until it is revoked. Recorded by the ledger and read by the posting decision inside its transaction.
public struct Mandate: Sendable, Hashable, Codable {
    public let number: String
    public let keyId: String
    public let keyName: String
    public let grantedAtMilliseconds: Int64
    public let revokedAtMilliseconds: Int64?

    public var isLive: Bool { revokedAtMilliseconds == nil }
}
