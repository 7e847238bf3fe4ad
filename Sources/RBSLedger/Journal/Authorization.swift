/// How the person authorised a journaled document: the method, and for OCRA the challenge derived from the
/// document and the response that answered it; for a passkey, the document's WebAuthn challenge, the authenticator
/// data and client data (the entry's signature is the passkey's). Recorded in the journal entry (covered by its hash) and checked by
/// ``Journal/verify(authenticator:)``.
public struct Authorization: Sendable, Hashable {
    public let method: SigningMethod
    /// The OCRA suite, ``SigningMethod/totpSuite``, or a passkey's algorithm (`WEBAUTHN-ES256`, `WEBAUTHN-EdDSA`).
    public let suite: String
    /// The OCRA challenge, or a passkey's (the document id's bytes, base64url); `nil` for TOTP.
    public let challenge: String?
    /// The OCRA response that was accepted (a used response is worth nothing: it is accepted once), or a passkey's
    /// base64url authenticatorData "." base64url clientDataJSON; `nil` for TOTP.
    public let response: String?
    /// ``Authenticator/secretId`` of the secret that was checked, or the passkey's credential id (base64url).
    public let secretId: String

    public init(method: SigningMethod, suite: String, challenge: String?, response: String?, secretId: String) {
        self.method = method
        self.suite = suite
        self.challenge = challenge
        self.response = response
        self.secretId = secretId
    }
}
