import Foundation

/// A customer of the bank who uses `rbs-host serve`: a name to log in with and a signing key the host keeps.
public struct Customer: Sendable, Hashable, Codable {
    /// The database row id: stable for the customer's lifetime, never reused while the row exists.
    public let id: Int64
    public let name: String
    /// The key id of the customer's Ed25519 signing key (see ``SigningIdentity/keyId(of:)``).
    public let keyId: String
    public let createdAtMilliseconds: Int64
    /// The customer this user belongs to (its first user's id) when added with `customers add-user`; nil for a
    /// customer's first user.
    public var memberOf: Int64? = nil

    /// The customer whose accounts, journal and second-signer threshold this user acts on.
    public var holderId: Int64 { memberOf ?? id }
}

/// What the host holds for a customer to check a login and sign after a code: loaded only for that.
public struct CustomerCredentials: Sendable {
    public let customer: Customer
    /// The password KDF's record (algorithm, parameters, salt, output), as the server wrote it.
    public let passwordRecord: String
    let totpSecret: Data
    let signingKey: Data
    /// The customer's newest passkey: with one, the customer signs on their own device and the host's key for them
    /// is not used (see README, "Dynamic linking").
    public let passkey: Passkey?

    /// The signing identity: the customer's key and TOTP secret.
    func identity() throws(KeyStoreError) -> SigningIdentity {
        do {
            return SigningIdentity(name: customer.name, privateKey: try .init(rawRepresentation: signingKey),
                                   authenticator: .totp(secret: totpSecret))
        } catch {
            throw .corrupt(path: "customers/\(customer.name)", detail: "the stored signing key is not an Ed25519 key")
        }
    }
}

/// Why a customer could not be added, found or removed.
public enum CustomerError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidName(String)
    case exists(String)
    case unknown(String)
    /// The passkey's credential id is already registered (to this customer or another).
    case passkeyInUse
    /// A sensitive action whose step-up — the customer's current one-time code — was not accepted: nothing changed.
    case stepUp(StepUpAction, OneTimeCodeError)
    /// A second-signer threshold that is not accepted.
    case secondSigner(SecondSignatureError)
    /// The customer cannot be removed while these journal entries await their second signature (no one could decide
    /// them after).
    case awaitingSecondSignatures(String, entries: [Int64])
    case storage(LedgerError)

    public var description: String {
        switch self {
        case .invalidName(let name):
            "'\(name)' cannot be a customer name: use 1–64 Latin letters (a–z, A–Z), digits, '.', '-' or '_'"
        case .exists(let name):
            "a customer or user named '\(name)' already exists, or one whose name differs only in case (see `rbs-host customers list`)"
        case .unknown(let name): "there is no customer named '\(name)' (see `rbs-host customers list`)"
        case .passkeyInUse: "this passkey is already registered; use it to sign, or register a new one on another authenticator"
        case .stepUp(let action, let error): "\(action.text) needs the customer's current one-time code: \(error.description)"
        case .secondSigner(let error): error.description
        case .awaitingSecondSignatures(let name, let entries):
            "'\(name)' is not removed: \(entries.count == 1 ? "journal entry" : "journal entries") "
                + entries.map(String.init).joined(separator: ", ")
                + " \(entries.count == 1 ? "awaits its" : "await their") second signature, which only the customer's users can give "
                + "or decline (`rbs-host customers pending \(name)`, then `customers approve` or `customers decline`); "
                + "nothing was changed"
        case .storage(let error): error.description
        }
    }
}

/// The actions that change who or what can sign for a customer: each takes the customer's current one-time code (a
/// step-up: PSD2 art. 97(1)(c), "any action through a remote channel which may imply a risk of payment fraud"),
/// checked in the transaction that makes the change, whatever front end asks.
public enum StepUpAction: String, Sendable, Equatable {
    /// A new passkey signs the customer's documents from then on.
    case registerPasskey
    /// A new user logs in and signs for the customer's accounts.
    case addUser
    /// When a payment needs a second signer (lowering or removing a threshold lets one user sign alone).
    case changeSecondSigner

    public var text: String {
        switch self {
        case .registerPasskey: "registering a passkey"
        case .addUser: "adding a user"
        case .changeSecondSigner: "changing when a second signer is needed"
        }
    }
}
