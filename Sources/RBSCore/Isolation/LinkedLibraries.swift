import Foundation

/// The shared libraries a plugin image needs from outside the system's library folders, found the way the dynamic
/// linker will look for them: each `DT_NEEDED` name in the folders of `DT_RPATH` (only when there is no
/// `DT_RUNPATH`), `LD_LIBRARY_PATH` and `DT_RUNPATH` of the object that needs it (`$ORIGIN` expanded), then the
/// needs of every library found, each name once.
///
/// For a Swift plugin these are the Swift runtime files of the toolchain it was built with (its `RUNPATH` names
/// `…/usr/lib/swift/linux`: `libswiftCore.so` and what that needs). The host is linked with the Swift runtime
/// inside it, so a worker has no `libswiftCore.so` loaded for the plugin's to resolve to: the dynamic linker opens
/// it, and the worker's Landlock ruleset must allow reading and executing exactly these files — not their folders.
///
/// Only what can be nothing but a library is named: a `lib*.so*` name without a slash that resolves to an ELF file.
/// So a plugin that puts the data folder in its `RUNPATH` gets no key or database file readable through it (none
/// of those is an ELF library), and it gains nothing it could not already do by carrying the code itself.
struct LinkedLibraries {
    /// The library files found, in the order they were found (the plugin's own needs first).
    let files: [String]

    /// - Parameters:
    ///   - image: the plugin image the worker will open.
    ///   - systemFolders: folders the worker may read anyway; a library found under one is not followed further
    ///     (the system's libraries need only system libraries).
    ///   - libraryPath: `LD_LIBRARY_PATH` of the worker, as the dynamic linker will read it.
    init(of image: String, systemFolders: [String],
         libraryPath: String? = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"]) {
        let extraFolders = (libraryPath ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
        func isSystem(_ path: String) -> Bool {
            systemFolders.contains { path == $0 || path.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
        }
        var found: [String] = []
        var named: Set<String> = []
        var queue = [image]
        while !queue.isEmpty {
            let object = queue.removeFirst()
            guard let dynamic = DynamicSection(path: object) else { continue }
            let origin = (object as NSString).deletingLastPathComponent
            let expand = { (folder: String) in
                folder.replacingOccurrences(of: "${ORIGIN}", with: origin).replacingOccurrences(of: "$ORIGIN", with: origin)
            }
            let folders = (dynamic.runpath.isEmpty ? dynamic.rpath.map(expand) : []) + extraFolders
                + dynamic.runpath.map(expand)
            for name in dynamic.needed where named.insert(name).inserted {
                guard name.hasPrefix("lib"), name.contains(".so"), !name.contains("/") else { continue }
                // A folder with $LIB or $PLATFORM in it is never searched here; the dynamic linker's own default
                // folders are the system's.
                for folder in folders where !folder.contains("$") {
                    let path = folder + "/" + name
                    guard DynamicSection.isELF(path) else { continue }
                    guard !isSystem(path) else { break }
                    found.append(path)
                    queue.append(path)
                    break
                }
            }
        }
        files = found
    }
}

extension LinkedLibraries {
    /// What the dynamic section of an ELF file names: the libraries it needs and where to look for them. Read with a
    /// few `pread`s (a runtime library is megabytes; only its headers and strings are read).
    struct DynamicSection {
        var needed: [String] = []
        var runpath: [String] = []
        var rpath: [String] = []

        /// Whether `path` is a regular file that starts as an ELF file does.
        static func isELF(_ path: String) -> Bool {
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            return Self.read(descriptor, at: 0, count: 4) == [0x7F, 0x45, 0x4C, 0x46]
        }

        /// The dynamic section of the 64-bit little-endian ELF file at `path`, or nil when it is not one or has none.
        init?(path: String) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            let header = Self.read(descriptor, at: 0, count: 64)
            guard header.count == 64, header.starts(with: [0x7F, 0x45, 0x4C, 0x46]), header[4] == 2, header[5] == 1
            else { return nil }
            let phoff = Self.u64(header, 32), phentsize = Int(Self.u16(header, 54)), phnum = Int(Self.u16(header, 56))
            guard phentsize >= 56, phnum <= 256 else { return nil }
            let table = Self.read(descriptor, at: phoff, count: phentsize * phnum)
            guard table.count == phentsize * phnum else { return nil }
            var loads: [(address: UInt64, offset: UInt64, size: UInt64)] = []
            var dynamic: (offset: UInt64, size: UInt64)?
            for index in 0..<phnum {
                let at = index * phentsize
                let type = Self.u32(table, at), offset = Self.u64(table, at + 8), address = Self.u64(table, at + 16)
                let size = Self.u64(table, at + 32)
                if type == 1 { loads.append((address, offset, size)) }
                if type == 2 { dynamic = (offset, size) }
            }
            guard let dynamic, dynamic.size <= 1 << 20 else { return nil }
            let entries = Self.read(descriptor, at: dynamic.offset, count: Int(dynamic.size))
            var neededOffsets: [UInt64] = [], runpathOffset: UInt64?, rpathOffset: UInt64?
            var stringAddress: UInt64?, stringSize: UInt64 = 0
            var at = 0
            while at + 16 <= entries.count {
                let tag = Self.u64(entries, at), value = Self.u64(entries, at + 8)
                at += 16
                switch tag {
                case 0: at = entries.count
                case 1: neededOffsets.append(value)
                case 5: stringAddress = value
                case 10: stringSize = value
                case 15: rpathOffset = value
                case 29: runpathOffset = value
                default: break
                }
            }
            guard let stringAddress, stringSize <= 1 << 24,
                  let load = loads.first(where: { stringAddress >= $0.address && stringAddress < $0.address + $0.size })
            else { return nil }
            let strings = Self.read(descriptor, at: stringAddress - load.address + load.offset, count: Int(stringSize))
            func string(_ offset: UInt64) -> String? {
                guard offset < UInt64(strings.count) else { return nil }
                let start = Int(offset)
                let end = strings[start...].firstIndex(of: 0) ?? strings.count
                return String(decoding: strings[start..<end], as: UTF8.self)
            }
            needed = neededOffsets.compactMap(string)
            runpath = runpathOffset.flatMap(string).map { $0.split(separator: ":").map(String.init) } ?? []
            rpath = rpathOffset.flatMap(string).map { $0.split(separator: ":").map(String.init) } ?? []
        }

        private static func read(_ descriptor: Int32, at offset: UInt64, count: Int) -> [UInt8] {
            guard count > 0, offset <= UInt64(Int64.max) else { return [] }
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return got == count ? bytes : []
        }

        private static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
        }
        private static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
        }
    }
}
