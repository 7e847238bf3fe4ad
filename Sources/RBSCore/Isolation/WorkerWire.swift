import CRBSPlugin
import Foundation
import RBSExpressions
import RBSMoney

/// The worker protocol's messages. A frame is a little-endian `UInt32` length (of what follows), one kind byte and
/// the payload, written with `WireWriter` and read with `WireReader`. The host sends requests and answers callbacks;
/// the worker answers requests and, while it serves one, may send callbacks (the plugin calling its host table).
enum WireKind: UInt8 {
    // Host → worker requests.
    case create = 1          // module u32, operation str → reply status (0 made, 1 NULL)
    case destroy = 2         // module u32 → reply
    case valueChanged = 3    // module u32, atom str, value → reply status i32 (or -1: no callback)
    case action = 4          // module u32, atom str → reply status i32 (or -1)
    case build = 5           // module u32 → reply status i32 (-1: no callback), fields, problem?
    case call = 6            // module u32 (0: none), operation str, function str, args [ExprValue] → reply ExprValue
    case stateSave = 7       // → reply bytes? (nil: no rbs.state/1 or save failed)
    case stateLoad = 8       // bytes → reply bool
    case quit = 9            // no reply: the worker calls deinit() and exits 0
    case commit = 10         // module u32, operation str, values u32 × (atom str, value), calls u32 × (function
                             // str, args u32, [ExprValue]) → reply statuses u32 × i32 (-1: no callback), answers
                             // u32, [ExprValue]: a commit's value_changed (after those of the values the run held)
                             // and then the function calls it made stale, in one round trip
    // Worker → host.
    case ready = 20          // manifest JSON, services [str]  (first frame after start)
    case startFailed = 21    // message str (then the worker exits 1)
    case reply = 22          // the answer to the request or callback in flight
    // Worker → host callbacks (the plugin calls its host table).
    case getValue = 40       // module, atom → reply present bool, value
    case setValue = 41       // module, atom, value → reply bool
    case setCaption = 42     // module, atom, caption → reply bool
    case setVisible = 43     // module, atom, bool → reply bool
    case setError = 44       // module, atom?, message? → reply bool
    case log = 45            // level u32, source?, message (no reply)
    case accountsCount = 46  // → reply u32
    case accountsAt = 47     // index u32 → reply account?
    case accountsFind = 48   // number str → reply account?
    case directoryLookup = 49 // bic str → reply bank?
    case clockNow = 50       // → reply i64
    case clockToday = 51     // → reply str
    case cardsCount = 52     // → reply u32 (the cards are read now and kept for the cardsAt that follow)
    case cardsAt = 53        // index u32 → reply present bool, id str, masked str, account str, blocked bool
    case setCaptionTexts = 54 // module, atom, variants u32 × (language str, text str) → reply bool (rbs.run-texts/1)
    case setErrorTexts = 55  // module, atom?, variants u32 × (language str, text str) → reply bool

    /// A worker → host callback: the plugin calling its host table (40 and up), answered while a request waits —
    /// or while the worker starts, when init() uses a service.
    var isCallback: Bool { rawValue >= WireKind.getValue.rawValue }
}

/// The largest frame either side accepts: a plugin cannot make the host allocate without bound.
let wireFrameLimit = 16 << 20

/// Builds one frame's payload.
struct WireWriter {
    private(set) var bytes: [UInt8]

    init(_ kind: WireKind) {
        bytes = [0, 0, 0, 0, kind.rawValue]
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }
    mutating func i64(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func data(_ value: some Collection<UInt8>) {
        u32(UInt32(clamping: value.count))
        bytes += value
    }
    mutating func string(_ value: String) { data(Array(value.utf8)) }
    mutating func optionalString(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }
    /// A text's variants per language (rbs.run-texts/1).
    mutating func variants(_ text: RunText) {
        u32(UInt32(text.variants.count))
        for variant in text.variants {
            string(variant.language)
            string(variant.text)
        }
    }
    /// A C string (its bytes as they are, up to the NUL).
    mutating func cString(_ value: UnsafePointer<CChar>?) {
        guard let value else { return data([UInt8]()) }
        data(UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self), count: strlen(value)))
    }

    /// An `rbs_value_t`, its strings copied byte for byte (TEXT may carry bytes that are not UTF-8).
    mutating func value(_ raw: rbs_value_t) {
        u32(raw.type)
        switch Int(raw.type) {
        case RBS_VALUE_TEXT, RBS_VALUE_DATE, RBS_VALUE_DECIMAL:
            if let data = raw.as.text.data {
                self.data(UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self),
                                              count: Int(clamping: raw.as.text.length)))
            } else {
                self.data([UInt8]())
            }
        case RBS_VALUE_INTEGER: i64(raw.as.integer)
        case RBS_VALUE_BOOL: bool(raw.as.boolean)
        case RBS_VALUE_MONEY:
            cString(raw.as.money.amount)
            cString(raw.as.money.currency)
        default: break
        }
    }

    mutating func expression(_ value: ExprValue) {
        switch value {
        case .null: u8(0)
        case .bool(let flag): u8(1); bool(flag)
        case .int(let number): u8(2); i64(number)
        case .decimal(let decimal): u8(3); string(decimal.description)
        case .string(let text): u8(4); string(text)
        }
    }

    /// The finished frame, its length filled in.
    var frame: [UInt8] {
        var result = bytes
        let length = UInt32(result.count - 4).littleEndian
        withUnsafeBytes(of: length) { for i in 0..<4 { result[i] = $0[i] } }
        return result
    }
}

/// A malformed frame: the other side is not speaking the protocol.
struct WireError: Error, CustomStringConvertible {
    var description: String
}

/// Reads one frame's payload.
struct WireReader {
    let kind: WireKind
    private let bytes: [UInt8]
    private var offset = 0

    init(kind: WireKind, payload: [UInt8]) {
        self.kind = kind
        bytes = payload
    }

    private mutating func take(_ count: Int) throws(WireError) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - offset >= count else { throw WireError(description: "a \(kind) frame is cut short") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func u8() throws(WireError) -> UInt8 { try take(1).first ?? 0 }
    mutating func bool() throws(WireError) -> Bool { try u8() != 0 }
    mutating func u32() throws(WireError) -> UInt32 {
        try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
    mutating func i32() throws(WireError) -> Int32 { Int32(bitPattern: try u32()) }
    mutating func i64() throws(WireError) -> Int64 {
        Int64(bitPattern: try take(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }
    mutating func data() throws(WireError) -> [UInt8] { Array(try take(Int(try u32()))) }
    mutating func string() throws(WireError) -> String { String(decoding: try data(), as: UTF8.self) }
    mutating func optionalString() throws(WireError) -> String? { try bool() ? try string() : nil }
    /// A text's variants as a worker sent them: checked again by the caller (a worker is not trusted).
    mutating func variants() throws(WireError) -> [TextVariant] {
        let count = Int(try u32())
        // Each variant is at least two lengths: a count the frame cannot hold is refused before anything is reserved.
        guard count <= (bytes.count - offset) / 8 else { throw WireError(description: "a \(kind) frame is cut short") }
        return try (0..<count).map { _ throws(WireError) in TextVariant(language: try string(), text: try string()) }
    }

    /// An `rbs_value_t` as type and byte strings (see `WireValue.withC`).
    mutating func value() throws(WireError) -> WireValue {
        let type = try u32()
        switch Int(type) {
        case RBS_VALUE_TEXT, RBS_VALUE_DATE, RBS_VALUE_DECIMAL: return WireValue(type: type, text: try data())
        case RBS_VALUE_INTEGER: return WireValue(type: type, integer: try i64())
        case RBS_VALUE_BOOL: return WireValue(type: type, boolean: try bool())
        case RBS_VALUE_MONEY: return WireValue(type: type, text: try data(), currency: try data())
        default: return WireValue(type: type)
        }
    }

    mutating func expression() throws(WireError) -> ExprValue {
        switch try u8() {
        case 0: return .null
        case 1: return .bool(try bool())
        case 2: return .int(try i64())
        case 3:
            let text = try string()
            // Exactly the plain decimal text the encoder writes: Foundation's reader would take "12abc" as 12.
            guard let decimal = DecimalText.parse(text) else {
                throw WireError(description: "'\(text)' is not a decimal")
            }
            return .decimal(decimal)
        case 4: return .string(try string())
        case let tag: throw WireError(description: "unknown value tag \(tag)")
        }
    }
}

/// An `rbs_value_t` received on the wire, owning its bytes.
struct WireValue {
    var type: UInt32
    var text: [UInt8] = []
    var currency: [UInt8] = []
    var integer: Int64 = 0
    var boolean = false

    /// Calls `body` with the value as an `rbs_value_t` whose strings are NUL-terminated and live for the call.
    func withC<R>(_ body: (UnsafePointer<rbs_value_t>) -> R) -> R {
        var raw = rbs_value_t()
        raw.type = type
        let first = text + [0]
        let second = currency + [0]
        return first.withUnsafeBufferPointer { a in
            second.withUnsafeBufferPointer { b in
                a.withMemoryRebound(to: CChar.self) { a in
                    b.withMemoryRebound(to: CChar.self) { b in
                        switch Int(type) {
                        case RBS_VALUE_TEXT, RBS_VALUE_DATE, RBS_VALUE_DECIMAL:
                            raw.as.text.data = a.baseAddress
                            raw.as.text.length = UInt64(text.count)
                        case RBS_VALUE_INTEGER: raw.as.integer = integer
                        case RBS_VALUE_BOOL: raw.as.boolean = boolean
                        case RBS_VALUE_MONEY:
                            raw.as.money.amount = a.baseAddress
                            raw.as.money.currency = b.baseAddress
                        default: break
                        }
                        return body(&raw)
                    }
                }
            }
        }
    }
}

/// Blocking frame output on one end of the worker channel (frames are read through ``WireReceiver``).
enum WireIO {
    /// Writes a whole frame; false when the other side is gone.
    static func write(_ fd: Int32, _ frame: [UInt8]) -> Bool {
        var done = 0
        while done < frame.count {
            let count = frame.withUnsafeBytes { send(fd, $0.baseAddress! + done, frame.count - done, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }
}
