import Foundation

/// A plugin package, `*.rbspkg` (`rbs-host plugin pack`): one file holding a plugin's shared object for each
/// architecture, each object's own signature (the `.sig` a loose plugin has), and a manifest outside the binary, the
/// whole signed at once. It is a plain byte string, so a shared database can later keep it as one value.
/// ```
/// rbs-plugin-package 1\n
/// entry manifest.json <size>\n<size bytes>\n
/// entry objects/<arch>.so <size>\n<size bytes>\n
/// entry objects/<arch>.so.sig <size>\n<size bytes>\n        (one pair per architecture)
/// entry package.sig <size>\n<size bytes>\n                 (last)
/// ```
/// `package.sig` is an `rbs-plugin-signature 1` text (``PluginSignature``) whose `file-sha256` is the SHA-256 of every
/// byte before its `entry package.sig` line, and whose plugin and version are the manifest's: it is checked by the
/// same code as a loose plugin's `.sig` (``PluginTrustPolicy/check(_:contentSHA256:path:signaturePath:)``).
public struct PluginPackage: Sendable {
    public static let header = "rbs-plugin-package 1"
    public static let fileExtension = "rbspkg"
    public static let manifestEntry = "manifest.json"
    public static let signatureEntry = "package.sig"

    /// The object entry of an architecture, and its signature's.
    public static func objectEntry(_ architecture: String) -> String { "objects/\(architecture).so" }
    public static func objectSignatureEntry(_ architecture: String) -> String { objectEntry(architecture) + ".sig" }

    /// The entries before the signature, in file order.
    public var entries: [(name: String, bytes: [UInt8])]
    /// The package signature's text.
    public var signatureText: String
    /// SHA-256 of the bytes the package signature covers.
    public var signedSHA256: String

    /// The bytes of entry `name`, if the package has it.
    public func entry(_ name: String) -> [UInt8]? { entries.first { $0.name == name }?.bytes }

    /// The signed part of a package: the header and `entries` (names without spaces or line breaks).
    static func body(_ entries: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        var bytes = Array((header + "\n").utf8)
        for (name, content) in entries { append(name, content, to: &bytes) }
        return bytes
    }

    /// `body` followed by the signature entry: the package file.
    static func file(body: [UInt8], signature: PluginSignature) -> [UInt8] {
        var bytes = body
        append(signatureEntry, Array(signature.text.utf8), to: &bytes)
        return bytes
    }

    private static func append(_ name: String, _ content: [UInt8], to bytes: inout [UInt8]) {
        bytes += Array("entry \(name) \(content.count)\n".utf8)
        bytes += content
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Reads a package file's container (not its signature or manifest): `path` is named in errors.
    public static func read(_ bytes: [UInt8], path: String) throws(PackageError) -> PluginPackage {
        let newline = UInt8(ascii: "\n")
        /// The line starting at `offset` (without its newline) and where the next starts, or nil at the file's end.
        func line(at offset: Int) -> (text: String, next: Int)? {
            guard offset < bytes.count else { return nil }
            let end = bytes[offset...].prefix(200).firstIndex(of: newline)
            guard let end else { return (String(decoding: bytes[offset..<min(bytes.count, offset + 60)], as: UTF8.self), bytes.count + 1) }
            return (String(decoding: bytes[offset..<end], as: UTF8.self), end + 1)
        }
        guard let first = line(at: 0), first.text == header else { throw .notAPackage(path: path) }
        var offset = first.next
        var entries: [(name: String, bytes: [UInt8])] = []
        var names: Set<String> = []
        while true {
            guard let (text, next) = line(at: offset) else {
                // The file ends between entries: whatever came after (the signature at least) is missing.
                throw .truncated(path: path, entry: signatureEntry, size: bytes.count)
            }
            let fields = text.split(separator: " ", omittingEmptySubsequences: false)
            guard next <= bytes.count, fields.count == 3, fields[0] == "entry", !fields[1].isEmpty,
                  let size = Int(fields[2]), size >= 0 else {
                throw .malformed(path: path, offset: offset, reason: "expected 'entry NAME SIZE', found '\(text.prefix(60))'")
            }
            let name = String(fields[1])
            guard names.insert(name).inserted else {
                throw .malformed(path: path, offset: offset, reason: "the entry '\(name)' appears twice")
            }
            let (end, overflow) = next.addingReportingOverflow(size)
            guard !overflow, end < bytes.count else { throw .truncated(path: path, entry: name, size: bytes.count) }
            guard bytes[end] == newline else {
                throw .malformed(path: path, offset: end, reason: "the entry '\(name)' does not end where its size says")
            }
            let content = Array(bytes[next..<end])
            if name == signatureEntry {
                guard end + 1 == bytes.count else {
                    throw .malformed(path: path, offset: end + 1, reason: "bytes follow the package signature")
                }
                guard let text = String(bytes: content, encoding: .utf8) else {
                    throw .malformed(path: path, offset: next, reason: "the package signature is not UTF-8 text")
                }
                return PluginPackage(entries: entries, signatureText: text,
                                     signedSHA256: ContentHash.sha256(bytes[..<offset]))
            }
            entries.append((name, content))
            offset = end + 1
        }
    }
}

/// What a package says of its plugin, outside the binary (`manifest.json`, JSON with these keys).
public struct PackageManifest: Codable, Equatable, Sendable {
    /// The host ABI versions the plugin runs on: from `min` up to, not including, `below` ("1.2", "2.0").
    public struct ABIRange: Codable, Equatable, Sendable {
        public var min: String
        public var below: String

        public init(min: String, below: String) {
            self.min = min
            self.below = below
        }

        /// Whether `version` is in the range (major.minor compared; a malformed bound admits nothing).
        public func contains(_ version: ABIVersion) -> Bool {
            guard let low = Self.parse(min), let high = Self.parse(below) else { return false }
            let host = (version.major, version.minor)
            return host >= low && host < high
        }

        /// "1.2" → (1, 2).
        static func parse(_ text: String) -> (UInt32, UInt32)? {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let major = UInt32(parts[0]), let minor = UInt32(parts[1]) else { return nil }
            return (major, minor)
        }
    }

    /// A title and a description in one language.
    public struct Texts: Codable, Equatable, Sendable {
        public var title: String
        public var description: String

        public init(title: String, description: String) {
            self.title = title
            self.description = description
        }
    }

    /// One architecture's shared object.
    public struct Object: Codable, Equatable, Sendable {
        /// The package entry that holds it (its signature is this name + ".sig").
        public var entry: String
        public var sha256: String
        public var size: Int
    }

    public static let currentFormat = 1

    public var format: Int
    public var id: String
    public var version: String
    public var publisher: String
    public var hostABI: ABIRange
    /// The services the plugin uses (`rbs.accounts/1`, …), as its author declares them.
    public var services: [String]
    /// Title and description by language code (`en`, `ru`).
    public var texts: [String: Texts]
    public var changelog: String
    /// The shared object by architecture (`x86_64`, `aarch64`).
    public var objects: [String: Object]
}

/// The architecture names a package uses, from the ELF header's machine field.
public enum PackageArchitecture {
    static let byMachine: [UInt16: String] = [62: "x86_64", 183: "aarch64", 243: "riscv64"]

    /// This host's.
    public static var host: String {
        #if arch(x86_64)
        "x86_64"
        #elseif arch(arm64)
        "aarch64"
        #else
        "unknown"
        #endif
    }

    /// The names a package may use.
    public static var known: [String] { byMachine.values.sorted() }

    /// The architecture an ELF object is built for, or nil when the bytes are not a 64-bit ELF file of a known machine.
    static func of(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 20, bytes[0] == 0x7F, bytes[1] == 0x45, bytes[2] == 0x4C, bytes[3] == 0x46 else { return nil }
        return byMachine[UInt16(bytes[18]) | UInt16(bytes[19]) << 8]
    }
}
