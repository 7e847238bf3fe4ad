import Foundation
import FuzzSupport
@testable import RBSLedger

/// The passkey reader: the CBOR decoder (RFC 8949, as far as WebAuthn needs it), COSE keys, authenticator data and
/// the attestation object of a registration — what a browser (or anyone posing as one) sends at registration and
/// with every passkey signature. Any bytes are refused with a `PasskeyError` or accepted; nothing traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPasskeyCBOR(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(fuzzBytes(data, size))
    if let value = try? CBORReader.decode(bytes, what: "the fuzz input") {
        _ = try? PasskeyKey(cose: value)
    }
    _ = try? AuthenticatorData(bytes)
    // A registration whose client data is right, so the attestation object's own checks are reached.
    let relyingParty = try? RelyingParty(origin: "https://bank.example")
    let challenge = Data(repeating: 7, count: 32)
    let client = Data(#"{"type":"webauthn.create","challenge":"\#(Base64URL.encode(challenge))","origin":"https://bank.example"}"#.utf8)
    if let relyingParty {
        _ = try? Passkey.register(attestationObject: bytes, clientDataJSON: client, challenge: challenge,
                                  relyingParty: relyingParty, now: 0)
    }
    return 0
}

runFuzzer(fuzzPasskeyCBOR)
