import Foundation

/// A CBOR value (RFC 8949) as far as WebAuthn needs it: integers, byte and text strings, arrays, maps and the
/// simple values true, false and null.
enum CBORValue: Sendable, Hashable {
    case unsigned(UInt64)
    /// A negative integer: -1 - n.
    case negative(UInt64)
    case bytes(Data)
    case text(String)
    case array([CBORValue])
    case map([(key: CBORValue, value: CBORValue)])
    case bool(Bool)
    case null

    /// The value as a signed integer, when it is one that fits.
    var integer: Int64? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    /// The value of `key` in a map.
    subscript(key: CBORValue) -> CBORValue? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    static func == (a: CBORValue, b: CBORValue) -> Bool {
        switch (a, b) {
        case (.unsigned(let x), .unsigned(let y)), (.negative(let x), .negative(let y)): x == y
        case (.bytes(let x), .bytes(let y)): x == y
        case (.text(let x), .text(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.map(let x), .map(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.bool(let x), .bool(let y)): x == y
        case (.null, .null): true
        default: false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .unsigned(let n): hasher.combine(0); hasher.combine(n)
        case .negative(let n): hasher.combine(1); hasher.combine(n)
        case .bytes(let d): hasher.combine(d)
        case .text(let t): hasher.combine(t)
        case .array(let a): hasher.combine(a)
        case .map(let m): hasher.combine(m.count)
        case .bool(let b): hasher.combine(b)
        case .null: hasher.combine(9)
        }
    }
}

/// A minimal CBOR decoder for the WebAuthn attestation object and COSE keys: definite lengths only, no tags,
/// no floats, nesting at most 16 deep. Every malformed input is a ``PasskeyError/malformed(_:)`` that says what
/// and at which byte offset.
struct CBORReader {
    private let bytes: [UInt8]
    /// The offset of the next byte to read.
    private(set) var offset: Int
    private let what: String

    /// - Parameter what: what the bytes are, for messages ("the attestation object").
    init(_ data: Data, what: String, offset: Int = 0) {
        bytes = Array(data)
        self.offset = offset
        self.what = what
    }

    /// Decodes exactly one value that fills all the bytes.
    static func decode(_ data: Data, what: String) throws(PasskeyError) -> CBORValue {
        var reader = CBORReader(data, what: what)
        let value = try reader.read()
        guard reader.offset == reader.bytes.count else {
            throw .malformed("\(what) has \(reader.bytes.count - reader.offset) bytes after its CBOR value")
        }
        return value
    }

    /// Reads the next value (and leaves ``offset`` after it).
    mutating func read() throws(PasskeyError) -> CBORValue { try read(depth: 0) }

    private func fail(_ detail: String, at position: Int) -> PasskeyError {
        .malformed("\(what) is not valid CBOR at byte \(position): \(detail)")
    }

    private mutating func byte() throws(PasskeyError) -> UInt8 {
        guard offset < bytes.count else { throw fail("it ends in the middle of a value", at: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func take(_ count: UInt64, at start: Int) throws(PasskeyError) -> [UInt8] {
        guard count <= UInt64(bytes.count - offset) else {
            throw fail("a string of \(count) bytes runs past the end (\(bytes.count - offset) left)", at: start)
        }
        let end = offset + Int(count)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    private mutating func argument(_ info: UInt8, at start: Int) throws(PasskeyError) -> UInt64 {
        switch info {
        case 0...23: return UInt64(info)
        case 24...27:
            var value: UInt64 = 0
            for _ in 0..<(1 << (info - 24)) { value = value << 8 | UInt64(try byte()) }
            return value
        case 31: throw fail("indefinite lengths are not supported", at: start)
        default: throw fail("reserved additional information \(info)", at: start)
        }
    }

    private mutating func read(depth: Int) throws(PasskeyError) -> CBORValue {
        let start = offset
        guard depth < 16 else { throw fail("values are nested more than 16 deep", at: start) }
        let initial = try byte()
        let major = initial >> 5, info = initial & 0x1F
        if major == 7 {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            default: throw fail("simple value or float \(info) is not supported", at: start)
            }
        }
        let n = try argument(info, at: start)
        switch major {
        case 0: return .unsigned(n)
        case 1: return .negative(n)
        case 2: return .bytes(Data(try take(n, at: start)))
        case 3:
            guard let text = String(validating: try take(n, at: start), as: UTF8.self) else {
                throw fail("a text string is not UTF-8", at: start)
            }
            return .text(text)
        case 4:
            guard n <= UInt64(bytes.count - offset) else { throw fail("an array of \(n) items runs past the end", at: start) }
            var items: [CBORValue] = []
            for _ in 0..<n { items.append(try read(depth: depth + 1)) }
            return .array(items)
        case 5:
            guard n <= UInt64(bytes.count - offset) / 2 else { throw fail("a map of \(n) pairs runs past the end", at: start) }
            var pairs: [(key: CBORValue, value: CBORValue)] = []
            for _ in 0..<n {
                let keyAt = offset
                let key = try read(depth: depth + 1)
                if pairs.contains(where: { $0.key == key }) { throw fail("a map repeats a key", at: keyAt) }
                pairs.append((key, try read(depth: depth + 1)))
            }
            return .map(pairs)
        default:
            throw fail("tags (major type 6) are not supported", at: start)
        }
    }
}
