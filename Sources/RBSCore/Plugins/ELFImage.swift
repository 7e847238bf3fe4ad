import Foundation

/// What the host reads from a plugin file before it lets `dlopen` near it: is it a shared object for this machine,
/// is it whole, and does it need the Swift runtime (a Swift image must never be unloaded).
public struct ELFImage: Sendable {
    /// The libraries the image names in `DT_NEEDED`.
    let needed: [String]

    /// True when the image links the Swift runtime, so it must be opened with `RTLD_NODELETE`.
    var isSwift: Bool { needed.contains { $0.hasPrefix("libswiftCore") } }

    public enum Problem: Error, Hashable, Codable, CustomStringConvertible {
        case empty
        case notELF
        case notSharedObject(type: UInt16)
        case wrongClass
        case wrongMachine(found: UInt16, expected: UInt16)
        case truncated(what: String, needs: Int, size: Int)

        public var description: String {
            switch self {
            case .empty: "the file is empty — rebuild the plugin"
            case .notELF: "not an ELF file — a plugin is a shared object built with `cc -shared` or a dynamic library product"
            case .notSharedObject(let type): "an ELF file of type \(type), not a shared object — link it with -shared"
            case .wrongClass: "not a 64-bit little-endian ELF file — build the plugin for this machine"
            case .wrongMachine(let found, let expected):
                "built for ELF machine \(found), this host is \(expected) — build the plugin for this machine"
            case .truncated(let what, let needs, let size):
                "truncated ELF file: its \(what) ends at byte \(needs) but the file has \(size) bytes — copy or rebuild it whole"
            }
        }
    }

    #if arch(x86_64)
    static let hostMachine: UInt16 = 62
    #elseif arch(arm64)
    static let hostMachine: UInt16 = 183
    #else
    static let hostMachine: UInt16 = 0
    #endif

    /// Reads the ELF header, the program headers and the dynamic section of `bytes`.
    init(bytes: [UInt8]) throws(Problem) {
        let size = bytes.count
        guard size > 0 else { throw .empty }
        guard size >= 4, bytes[0] == 0x7F, bytes[1] == 0x45, bytes[2] == 0x4C, bytes[3] == 0x46 else { throw .notELF }
        guard size >= 64 else { throw .truncated(what: "header", needs: 64, size: size) }
        guard bytes[4] == 2, bytes[5] == 1 else { throw .wrongClass }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) } }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        let type = u16(16)
        guard type == 3 else { throw .notSharedObject(type: type) }
        let machine = u16(18)
        if Self.hostMachine != 0, machine != Self.hostMachine {
            throw .wrongMachine(found: machine, expected: Self.hostMachine)
        }
        let phoff = Int(clamping: u64(32)), shoff = Int(clamping: u64(40))
        let phentsize = Int(u16(54)), phnum = Int(u16(56)), shentsize = Int(u16(58)), shnum = Int(u16(60))
        let phEnd = phoff.addingReportingOverflow(phentsize * phnum)
        guard !phEnd.overflow, phEnd.partialValue <= size, phentsize >= 56 || phnum == 0 else {
            throw .truncated(what: "program header table", needs: phEnd.partialValue, size: size)
        }
        if shnum > 0 {
            let shEnd = shoff.addingReportingOverflow(shentsize * shnum)
            guard !shEnd.overflow, shEnd.partialValue <= size else {
                throw .truncated(what: "section header table", needs: shEnd.partialValue, size: size)
            }
        }
        var loads: [(vaddr: UInt64, offset: UInt64, filesz: UInt64)] = []
        var dynamic: (offset: Int, size: Int)?
        for index in 0..<phnum {
            let at = phoff + index * phentsize
            let ptype = u32(at), offset = u64(at + 8), vaddr = u64(at + 16), filesz = u64(at + 32)
            let end = offset.addingReportingOverflow(filesz)
            guard !end.overflow, end.partialValue <= UInt64(size) else {
                throw .truncated(what: "segment \(index)", needs: Int(clamping: end.partialValue), size: size)
            }
            if ptype == 1 { loads.append((vaddr, offset, filesz)) }
            if ptype == 2 { dynamic = (Int(offset), Int(filesz)) }
        }
        func fileOffset(ofAddress address: UInt64) -> Int? {
            for load in loads where address >= load.vaddr && address < load.vaddr + load.filesz {
                return Int(address - load.vaddr + load.offset)
            }
            return nil
        }
        var neededOffsets: [UInt64] = []
        var stringTable: Int?
        if let dynamic {
            var at = dynamic.offset
            while at + 16 <= dynamic.offset + dynamic.size {
                let tag = u64(at), value = u64(at + 8)
                if tag == 0 { break }
                if tag == 1 { neededOffsets.append(value) }
                if tag == 5 { stringTable = fileOffset(ofAddress: value) }
                at += 16
            }
        }
        var needed: [String] = []
        if let stringTable {
            for offset in neededOffsets {
                var at = stringTable + Int(clamping: offset)
                var name: [UInt8] = []
                while at < size, bytes[at] != 0, name.count < 4096 { name.append(bytes[at]); at += 1 }
                needed.append(String(decoding: name, as: UTF8.self))
            }
        }
        self.needed = needed
    }
}
