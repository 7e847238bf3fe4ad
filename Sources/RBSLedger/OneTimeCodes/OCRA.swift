import Crypto
import Foundation

/// The OATH challenge–response algorithm, RFC 6287 §5: HOTP's dynamic truncation over
/// HMAC(secret, suite ‖ 0x00 ‖ counter ‖ challenge ‖ PIN hash ‖ session ‖ time step).
///
/// The challenge is encoded as the reference implementation does: a numeric challenge as the hexadecimal digits
/// of its value, an alphanumeric one as the hexadecimal of its ASCII bytes, a hexadecimal one as given; then
/// those digits are padded on the right with zeros to 128 bytes. Counter and time step are 8 big-endian bytes;
/// PIN hash and session information are padded on the left to their lengths.
public enum OCRA {
    /// What goes into one computation besides the suite and the secret. Each part the suite names must be given.
    public struct Input: Sendable, Hashable {
        public var challenge: String
        public var counter: UInt64?
        /// The hash of the PIN with the suite's P algorithm (e.g. SHA-1 of "1234").
        public var pinHash: Data?
        public var session: Data?
        /// The number of time steps since the epoch (the suite's T step).
        public var timeStep: UInt64?

        public init(challenge: String, counter: UInt64? = nil, pinHash: Data? = nil, session: Data? = nil, timeStep: UInt64? = nil) {
            self.challenge = challenge
            self.counter = counter
            self.pinHash = pinHash
            self.session = session
            self.timeStep = timeStep
        }
    }

    /// The response to `input` under `suite` with `secret`: `suite.digits` decimal digits.
    public static func response(suite: OCRASuite, secret: Data, input: Input) throws(OCRAError) -> String {
        var message = Data(suite.text.utf8)
        message.append(0)
        if suite.usesCounter {
            guard let counter = input.counter else { throw .missingInput("the suite \(suite) needs a counter (C)") }
            message.append(bigEndian(counter))
        }
        message.append(try question(input.challenge, suite: suite))
        if let hash = suite.pinHash {
            let length = hash.mac(key: Data(), message: Data()).count
            guard let pin = input.pinHash, pin.count <= length else {
                throw .missingInput("the suite \(suite) needs a \(hash.rawValue) PIN hash of \(length) bytes")
            }
            message.append(Data(count: length - pin.count))
            message.append(pin)
        }
        if let length = suite.sessionLength {
            guard let session = input.session, session.count <= length else {
                throw .missingInput("the suite \(suite) needs session information of at most \(length) bytes")
            }
            message.append(Data(count: length - session.count))
            message.append(session)
        }
        if suite.timeStep != nil {
            guard let step = input.timeStep else { throw .missingInput("the suite \(suite) needs a time step (T)") }
            message.append(bigEndian(step))
        }
        let mac = suite.algorithm.mac(key: secret, message: message)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = UInt64(mac[offset] & 0x7F) << 24 | UInt64(mac[offset + 1]) << 16
            | UInt64(mac[offset + 2]) << 8 | UInt64(mac[offset + 3])
        var modulus: UInt64 = 1
        for _ in 0..<suite.digits { modulus *= 10 }
        let text = String(binary % modulus)
        return String(repeating: "0", count: suite.digits - text.count) + text
    }

    /// The 128 challenge bytes of the data input, after checking the challenge against the suite's format.
    ///
    /// The length is checked against the 128 bytes of the field, not the suite's `xx`: RFC 6287's own mutual
    /// vectors (Appendix C.2) put 16-character challenges under `QA08`. The host's challenges always have exactly
    /// the suite's length (``OCRASuite/challenge(forDocumentId:)``).
    static func question(_ challenge: String, suite: OCRASuite) throws(OCRAError) -> Data {
        let bytes = Array(challenge.utf8)
        guard !bytes.isEmpty else { throw .invalidChallenge(challenge, "the challenge is empty") }
        var nibbles: [UInt8]
        switch suite.challengeFormat {
        case .numeric:
            guard bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw .invalidChallenge(challenge, "a numeric challenge has only the digits 0–9")
            }
            nibbles = hexDigits(ofDecimal: bytes.map { $0 - UInt8(ascii: "0") })
        case .alphanumeric:
            guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw .invalidChallenge(challenge, "an alphanumeric challenge has only printable ASCII characters")
            }
            nibbles = bytes.flatMap { [$0 >> 4, $0 & 0x0F] }
        case .hexadecimal:
            nibbles = []
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibbles.append(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibbles.append(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibbles.append(byte - UInt8(ascii: "A") + 10)
                default: throw .invalidChallenge(challenge, "a hexadecimal challenge has only the digits 0–9 and A–F")
                }
            }
        }
        guard nibbles.count <= 256 else {
            throw .invalidChallenge(challenge, "it does not fit the 128 bytes of the challenge field")
        }
        nibbles += Array(repeating: 0, count: 256 - nibbles.count)
        var out = Data(capacity: 128)
        for i in stride(from: 0, to: 256, by: 2) { out.append(nibbles[i] << 4 | nibbles[i + 1]) }
        return out
    }

    /// The hexadecimal digits (most significant first, no leading zeros, "0" for zero) of a decimal number.
    static func hexDigits(ofDecimal digits: [UInt8]) -> [UInt8] {
        // Little-endian base-16 digits, multiplied by ten and added to per decimal digit.
        var value: [UInt8] = [0]
        for digit in digits {
            var carry = Int(digit)
            for i in value.indices {
                let sum = Int(value[i]) * 10 + carry
                value[i] = UInt8(sum & 0x0F)
                carry = sum >> 4
            }
            while carry > 0 {
                value.append(UInt8(carry & 0x0F))
                carry >>= 4
            }
        }
        while value.count > 1, value.last == 0 { value.removeLast() }
        return value.reversed()
    }

    private static func bigEndian(_ value: UInt64) -> Data {
        Data((0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * $0)) })
    }
}
