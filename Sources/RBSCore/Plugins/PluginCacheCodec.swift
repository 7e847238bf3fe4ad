import Foundation

/// The manifest cache's file format: compact and fast to read, since every start reads it whole. A magic line,
/// then unsigned LEB128 integers and length-prefixed UTF-8 strings. Anything malformed makes the whole cache
/// unreadable, and the host simply scans again.
enum PluginCacheCodec {
    static let magic = Array("RBSCACHE9\n".utf8)

    struct Malformed: Error {}

    // MARK: - Writing

    static func encode(_ cache: PluginCache) -> [UInt8] {
        var out = ByteWriter()
        out.bytes += magic
        out.string(cache.hostABI)
        out.int(cache.entries.count)
        for (path, entry) in cache.entries.sorted(by: { $0.key < $1.key }) {
            out.string(path)
            out.int(Int(entry.fingerprint.size))
            out.int(Int(entry.fingerprint.modified))
            out.int(Int(entry.fingerprint.changed))
            // An inode is a UInt64 (XFS and overlayfs give ones above Int64.max): written and read as its bit pattern.
            out.int(Int(truncatingIfNeeded: entry.fingerprint.inode))
            out.string(entry.fingerprint.hash)
            switch entry.result {
            case .failed(let failure):
                out.int(0)
                out.string((try? JSONEncoder().encode(failure)).map { String(decoding: $0, as: UTF8.self) } ?? "")
            case .plugin(let manifest, let services):
                out.int(1)
                write(manifest, &out)
                out.strings(services)
            }
        }
        out.strings(cache.inService.sorted())
        return out.bytes
    }

    private static func write(_ manifest: PluginManifest, _ out: inout ByteWriter) {
        out.string(manifest.id)
        out.string(manifest.name)
        out.string(manifest.version)
        out.string(manifest.vendor)
        out.optional(manifest.description)
        out.int(Int(manifest.abi.major))
        out.int(Int(manifest.abi.minor))
        out.int(Int(manifest.abi.patch))
        out.int(manifest.operations.count)
        for operation in manifest.operations {
            out.string(operation.id)
            out.string(operation.title)
            out.string(operation.category)
            out.int((operation.observesValues ? 1 : 0) | (operation.hasAction ? 2 : 0))
            out.int(operation.atoms.count)
            for atom in operation.atoms {
                out.string(atom.id)
                out.int(Int(atom.kind.rawValue))
                out.int(Int(atom.inputType.rawValue))
                out.int(Int(atom.flags.rawValue))
                out.int(atom.minLength)
                out.int(atom.maxLength)
                out.string(atom.caption)
                for text in [atom.hint, atom.currency, atom.showIf, atom.validIf, atom.errorText, atom.filter,
                             atom.defaultValue, atom.currencyOfAccount] {
                    out.optional(text)
                }
                out.int(atom.options.count)
                for option in atom.options {
                    out.string(option.value)
                    out.string(option.title)
                }
            }
            out.int(operation.functions.count)
            for function in operation.functions {
                out.string(function.name)
                out.string(function.symbol)
                out.string(function.signature)
                out.int(function.takesInstance ? 1 : 0)
                // The atoms it reads (rbs.function-reads/1): 0 when undeclared, else 1 + how many, then the ids.
                out.int(function.reads.map { $0.count + 1 } ?? 0)
                for atom in function.reads ?? [] { out.string(atom) }
            }
            out.int(operation.documentLabels.count)
            for label in operation.documentLabels {
                out.string(label.key)
                out.optional(label.label)
                out.int(Int(label.role.rawValue))
                out.optional(label.atom)
            }
            // Translations are few and read only when a person reads that language: kept as JSON (empty: none).
            out.string(operation.texts.isEmpty ? ""
                       : (try? JSONEncoder().encode(operation.texts)).map { String(decoding: $0, as: UTF8.self) } ?? "")
            out.strings(operation.recordedAtoms)
        }
    }

    // MARK: - Reading

    static func decode(_ bytes: [UInt8]) throws(Malformed) -> PluginCache {
        try bytes.withUnsafeBufferPointer { buffer throws(Malformed) in try decode(buffer) }
    }

    /// Reads the cache from memory the caller holds (the file's bytes as read, without a copy into an array).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(Malformed) -> PluginCache {
        guard bytes.starts(with: magic) else { throw Malformed() }
        var input = ByteReader(bytes: bytes, offset: magic.count)
        let abi = try input.string()
        var entries: [String: PluginCache.Entry] = [:]
        let count = try input.count()
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let path = try input.string()
            let fingerprint = PluginCache.Fingerprint(size: Int64(try input.int()), modified: Int64(try input.int()),
                                                      changed: Int64(try input.int()),
                                                      inode: UInt64(truncatingIfNeeded: try input.int()),
                                                      hash: try input.string())
            let result: ScanResult
            switch try input.int() {
            case 0:
                guard let failure = try? JSONDecoder().decode(ScanFailure.self, from: Data(try input.string().utf8)) else {
                    throw Malformed()
                }
                result = .failed(failure)
            case 1:
                let manifest = try read(&input)
                result = .plugin(manifest, services: try input.strings())
            default: throw Malformed()
            }
            entries[path] = PluginCache.Entry(fingerprint: fingerprint, result: result)
        }
        return PluginCache(hostABI: abi, entries: entries, inService: Set(try input.strings()))
    }

    private static func read(_ input: inout ByteReader) throws(Malformed) -> PluginManifest {
        let id = try input.string(), name = try input.string(), version = try input.string()
        let vendor = try input.string(), description = try input.optional()
        let abi = ABIVersion(major: UInt32(truncatingIfNeeded: try input.int()),
                             minor: UInt32(truncatingIfNeeded: try input.int()),
                             patch: UInt32(truncatingIfNeeded: try input.int()))
        var operations: [OperationDescriptor] = []
        operations.reserveCapacity(try input.peekCount())
        for _ in 0..<(try input.count()) {
            let operationID = try input.string(), title = try input.string(), category = try input.string()
            let callbacks = try input.int()
            var atoms: [AtomDescriptor] = []
            atoms.reserveCapacity(try input.peekCount())
            for _ in 0..<(try input.count()) {
                let atomID = try input.string()
                guard let kind = AtomKind(rawValue: UInt32(truncatingIfNeeded: try input.int())),
                      let inputType = AtomInputType(rawValue: UInt32(truncatingIfNeeded: try input.int())) else {
                    throw Malformed()
                }
                let flags = AtomFlags(rawValue: UInt32(truncatingIfNeeded: try input.int()))
                let minLength = try input.int(), maxLength = try input.int(), caption = try input.string()
                let hint = try input.optional(), currency = try input.optional(), showIf = try input.optional()
                let validIf = try input.optional(), errorText = try input.optional(), filter = try input.optional()
                let defaultValue = try input.optional(), currencyOfAccount = try input.optional()
                var options: [AtomOption] = []
                options.reserveCapacity(try input.peekCount())
                for _ in 0..<(try input.count()) {
                    options.append(AtomOption(value: try input.string(), title: try input.string()))
                }
                atoms.append(AtomDescriptor(id: atomID, kind: kind, inputType: inputType, flags: flags,
                                            minLength: minLength, maxLength: maxLength, caption: caption, hint: hint,
                                            currency: currency, showIf: showIf, validIf: validIf,
                                            errorText: errorText, filter: filter, defaultValue: defaultValue,
                                            options: options, currencyOfAccount: currencyOfAccount))
            }
            var functions: [FunctionDescriptor] = []
            functions.reserveCapacity(try input.peekCount())
            for _ in 0..<(try input.count()) {
                var function = FunctionDescriptor(name: try input.string(), symbol: try input.string(),
                                                  signature: try input.string(), takesInstance: try input.int() != 0)
                let declared = try input.count()
                if declared > 0 {
                    var reads: [String] = []
                    for _ in 0..<(declared - 1) { reads.append(try input.string()) }
                    function.reads = reads
                }
                functions.append(function)
            }
            var labels: [DocumentLabel] = []
            labels.reserveCapacity(try input.peekCount())
            for _ in 0..<(try input.count()) {
                let key = try input.string(), label = try input.optional()
                guard let role = DocumentFieldRole(rawValue: UInt32(truncatingIfNeeded: try input.int())) else {
                    throw Malformed()
                }
                labels.append(DocumentLabel(key: key, label: label, role: role, atom: try input.optional()))
            }
            let json = try input.string()
            var texts: [String: OperationTexts] = [:]
            if !json.isEmpty {
                guard let decoded = try? JSONDecoder().decode([String: OperationTexts].self, from: Data(json.utf8)) else {
                    throw Malformed()
                }
                texts = decoded
            }
            let recorded = try input.strings()
            operations.append(OperationDescriptor(id: operationID, title: title, category: category, atoms: atoms,
                                                  functions: functions, observesValues: callbacks & 1 != 0,
                                                  hasAction: callbacks & 2 != 0, documentLabels: labels, texts: texts,
                                                  recordedAtoms: recorded))
        }
        return PluginManifest(id: id, name: name, version: version, vendor: vendor, description: description,
                              abi: abi, operations: operations)
    }
}

private struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func int(_ value: Int) {
        var rest = UInt64(bitPattern: Int64(value))
        repeat {
            let low = UInt8(rest & 0x7F)
            rest >>= 7
            bytes.append(rest == 0 ? low : low | 0x80)
        } while rest != 0
    }

    mutating func string(_ text: String) {
        let utf8 = Array(text.utf8)
        int(utf8.count)
        bytes += utf8
    }

    mutating func optional(_ text: String?) {
        if let text {
            int(1)
            string(text)
        } else {
            int(0)
        }
    }

    mutating func strings(_ list: [String]) {
        int(list.count)
        for text in list { string(text) }
    }
}

/// Reads the cache's integers and strings from memory held by the caller of ``PluginCacheCodec/decode(_:)``: no
/// array is retained or sliced per string.
private struct ByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset: Int

    @inline(__always)
    mutating func int() throws(PluginCacheCodec.Malformed) -> Int {
        // Most integers (counts, kinds, flags, lengths) fit in one byte.
        if offset < bytes.count, bytes[offset] < 0x80 {
            offset += 1
            return Int(bytes[offset - 1])
        }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw PluginCacheCodec.Malformed() }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        return Int(Int64(bitPattern: value))
    }

    /// A count of items that follow: never more than the bytes left could hold.
    mutating func count() throws(PluginCacheCodec.Malformed) -> Int {
        let value = try int()
        guard value >= 0, value <= bytes.count - offset else { throw PluginCacheCodec.Malformed() }
        return value
    }

    /// The count that follows, without reading past it (to reserve room for the items).
    func peekCount() throws(PluginCacheCodec.Malformed) -> Int {
        var copy = self
        return try copy.count()
    }

    mutating func string() throws(PluginCacheCodec.Malformed) -> String {
        let length = try count()
        defer { offset += length }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
    }

    mutating func optional() throws(PluginCacheCodec.Malformed) -> String? {
        try int() == 0 ? nil : try string()
    }

    mutating func strings() throws(PluginCacheCodec.Malformed) -> [String] {
        var list: [String] = []
        for _ in 0..<(try count()) { list.append(try string()) }
        return list
    }
}
