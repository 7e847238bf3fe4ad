/// How the person authorised a journaled document: the method, and for OCRA the challenge derived from the
/// document and the response that answered it. Recorded in the journal entry (covered by its hash) and checked by
/// ``Journal/verify(authenticator:)``.
public struct Authorization: Sendable, Hashable {
    public let method: SigningMethod
    /// The OCRA suite, or ``SigningMethod/totpSuite``.
    public let suite: String
    /// The OCRA challenge (`nil` for TOTP).
    public let challenge: String?
    /// The OCRA response that was accepted (`nil` for TOTP; a used response is worth nothing: it is accepted once).
    public let response: String?
    /// ``Authenticator/secretId`` of the secret that was checked.
    public let secretId: String

    public init(method: SigningMethod, suite: String, challenge: String?, response: String?, secretId: String) {
        self.method = method
        self.suite = suite
        self.challenge = challenge
        self.response = response
        self.secretId = secretId
    }
}
