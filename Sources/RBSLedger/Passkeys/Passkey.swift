import Crypto
import Foundation

/// A customer's registered passkey (WebAuthn credential): its id, public key and the last signature counter seen.
/// The host keeps only the public key; the private key never leaves the customer's authenticator.
public struct Passkey: Sendable, Hashable {
    public let credentialId: Data
    public let key: PasskeyKey
    /// The authenticator's signature counter at the last accepted assertion (0 for authenticators that keep none).
    public let signCount: UInt32
    public let createdAtMilliseconds: Int64

    public init(credentialId: Data, key: PasskeyKey, signCount: UInt32, createdAtMilliseconds: Int64) {
        self.credentialId = credentialId
        self.key = key
        self.signCount = signCount
        self.createdAtMilliseconds = createdAtMilliseconds
    }

    /// Checks a registration ceremony (`navigator.credentials.create`): clientDataJSON is `webauthn.create` for
    /// `challenge` at the relying party's origin; the attestation object (CBOR: fmt, attStmt, authData — attestation
    /// "none" or any other, whose statement is not checked) holds authenticator data for the relying party's id,
    /// with the user present and verified and a credential with an ES256 or Ed25519 key.
    public static func register(attestationObject: Data, clientDataJSON: Data, challenge: Data,
                                relyingParty: RelyingParty, now: Int64) throws(PasskeyError) -> Passkey {
        let client = try ClientData(clientDataJSON)
        let object = try CBORReader.decode(attestationObject, what: "the attestation object")
        guard case .map = object else { throw .malformed("the attestation object is not a CBOR map") }
        guard case .text = object[.text("fmt")] else { throw .malformed("the attestation object has no text \"fmt\"") }
        guard case .bytes(let authData) = object[.text("authData")] else {
            throw .malformed("the attestation object has no byte string \"authData\"")
        }
        let data = try AuthenticatorData(authData)
        guard client.type == "webauthn.create" else { throw .wrongType(expected: "webauthn.create", found: client.type) }
        guard client.challenge == Base64URL.encode(challenge) else { throw .wrongChallenge }
        guard client.origin == relyingParty.origin else { throw .wrongOrigin(expected: relyingParty.origin, found: client.origin) }
        guard data.rpIdHash == relyingParty.idHash else { throw .wrongRelyingParty(expected: relyingParty.id) }
        guard data.userPresent else { throw .userNotPresent }
        guard data.userVerified else { throw .userNotVerified }
        guard let credential = data.credential else {
            throw .malformed("the attestation object's authData holds no credential (flag AT is not set)")
        }
        guard !credential.id.isEmpty, credential.id.count <= 1023 else {
            throw .malformed("the credential id is \(credential.id.count) bytes; WebAuthn allows 1 to 1023")
        }
        return Passkey(credentialId: credential.id, key: credential.key, signCount: data.signCount, createdAtMilliseconds: now)
    }
}

/// What `navigator.credentials.get` returns for a document: the authenticator data, clientDataJSON and the
/// signature over authenticatorData ‖ SHA-256(clientDataJSON), made by the customer's passkey for a challenge that
/// is the document's hash. It is the customer's signature of the document.
public struct PasskeyAssertion: Sendable, Hashable {
    public let credentialId: Data
    public let authenticatorData: Data
    public let clientDataJSON: Data
    public let signature: Data

    public init(credentialId: Data, authenticatorData: Data, clientDataJSON: Data, signature: Data) {
        self.credentialId = credentialId
        self.authenticatorData = authenticatorData
        self.clientDataJSON = clientDataJSON
        self.signature = signature
    }

    /// The WebAuthn challenge for a document: its id (SHA-256 of the canonical bytes) as bytes, base64url.
    public static func challenge(forDocumentId id: String) -> String {
        Base64URL.encode(Hex.decode(id) ?? Data(id.utf8))
    }

    /// Checks this assertion as the customer's signature of the document `documentId` with `passkey`, at
    /// `relyingParty`; returns the new signature counter. Every check is made; the first failure is thrown.
    public func check(documentId: String, passkey: Passkey, relyingParty: RelyingParty) throws(PasskeyError) -> UInt32 {
        guard credentialId == passkey.credentialId else { throw .unknownCredential }
        let data = try AuthenticatorData(authenticatorData)
        let client = try ClientData(clientDataJSON)
        guard client.type == "webauthn.get" else { throw .wrongType(expected: "webauthn.get", found: client.type) }
        guard client.challenge == Self.challenge(forDocumentId: documentId) else { throw .wrongChallenge }
        guard client.origin == relyingParty.origin else { throw .wrongOrigin(expected: relyingParty.origin, found: client.origin) }
        guard data.rpIdHash == relyingParty.idHash else { throw .wrongRelyingParty(expected: relyingParty.id) }
        guard data.userPresent else { throw .userNotPresent }
        guard data.userVerified else { throw .userNotVerified }
        guard passkey.key.isValidSignature(signature, for: signedBytes) else { throw .badSignature }
        // Counters are optional (0 always) but, once kept, must grow: the same assertion twice is refused.
        if data.signCount != 0 || passkey.signCount != 0, data.signCount <= passkey.signCount {
            throw .replayedCounter(stored: passkey.signCount, found: data.signCount)
        }
        return data.signCount
    }

    /// authenticatorData ‖ SHA-256(clientDataJSON): what the passkey signed.
    var signedBytes: Data {
        var bytes = authenticatorData
        bytes.append(contentsOf: SHA256Digest.of(clientDataJSON))
        return bytes
    }

    /// How the journal records it: suite = the key's algorithm, challenge = the document's challenge, response =
    /// base64url(authenticatorData) "." base64url(clientDataJSON), secret id = base64url(credential id). The
    /// signature is the entry's signature.
    func authorization(key: PasskeyKey, documentId: String) -> Authorization {
        Authorization(method: .passkey, suite: key.suite, challenge: Self.challenge(forDocumentId: documentId),
                      response: Base64URL.encode(authenticatorData) + "." + Base64URL.encode(clientDataJSON),
                      secretId: Base64URL.encode(credentialId))
    }

    /// What is wrong with a journal entry's passkey signature, or nil: the recorded authenticator data and client
    /// data are for this document (`webauthn.get`, the document's challenge, the rpIdHash of the origin's host, the
    /// user present and verified) and the signature verifies with the registered key.
    static func problem(documentId: String, signature: Data, authorization: Authorization, raw: Data) -> String? {
        let key: PasskeyKey
        do { key = try PasskeyKey(suite: authorization.suite, raw: raw) } catch { return "the passkey key cannot be read: \(error)" }
        let parts = (authorization.response ?? "").split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let authenticatorData = Base64URL.decode(String(parts[0])),
              let clientDataJSON = Base64URL.decode(String(parts[1])), let credential = Base64URL.decode(authorization.secretId) else {
            return "the recorded passkey assertion is not base64url authenticatorData.clientDataJSON"
        }
        guard authorization.challenge == challenge(forDocumentId: documentId) else {
            return "the recorded passkey challenge is not this document's hash: the assertion was not for this document"
        }
        let assertion = PasskeyAssertion(credentialId: credential, authenticatorData: authenticatorData,
                                         clientDataJSON: clientDataJSON, signature: signature)
        do {
            let client = try ClientData(clientDataJSON)
            let party = try RelyingParty(origin: client.origin)
            // Counter 0 as stored: the counter is checked when signing (the journal keeps no order of counters).
            _ = try assertion.check(documentId: documentId, passkey: Passkey(credentialId: credential, key: key, signCount: 0, createdAtMilliseconds: 0),
                                    relyingParty: party)
        } catch {
            return "the passkey signature does not hold: \(error.description)"
        }
        return nil
    }
}

/// SHA-256 as bytes.
enum SHA256Digest {
    static func of(_ data: Data) -> Data {
        Data(SHA256.hash(data: data))
    }
}
