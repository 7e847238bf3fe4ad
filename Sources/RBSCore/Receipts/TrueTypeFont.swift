import Foundation

/// The parts of a TrueType font a PDF needs to embed it whole: the file's bytes, the character-to-glyph map
/// (`cmap`, format 4: the Basic Multilingual Plane), the glyphs' advance widths (`hmtx`) and the metrics of its font
/// descriptor (`head`, `hhea`). Every offset is checked against the file, so a damaged font is an error, not a trap.
struct TrueTypeFont {
    let data: Data
    let unitsPerEm: Int
    let ascent: Int
    let descent: Int
    /// xMin, yMin, xMax, yMax in font units.
    let boundingBox: [Int]
    private let advances: [Int]
    private let glyphs: [UInt32: UInt16]

    init(path: String) throws(ReceiptError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .font(path: path, detail: "it is missing or unreadable")
        }
        do { try self.init(data: data) } catch let detail as Problem {
            throw .font(path: path, detail: detail.text)
        } catch {
            throw .font(path: path, detail: "\(error)")
        }
    }

    struct Problem: Error { let text: String }

    init(data: Data) throws {
        let bytes = [UInt8](data)
        func u16(_ at: Int) throws -> Int {
            guard at >= 0, at + 2 <= bytes.count else { throw Problem(text: "it ends early (byte \(at))") }
            return Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func i16(_ at: Int) throws -> Int { let v = try u16(at); return v >= 0x8000 ? v - 0x10000 : v }
        func u32(_ at: Int) throws -> Int { try u16(at) << 16 | u16(at + 2) }
        let version = try u32(0)
        guard version == 0x0001_0000 || version == 0x7472_7565 else { throw Problem(text: "it is not a TrueType font") }
        var tables: [String: Int] = [:]
        for index in 0..<(try u16(4)) {
            let record = 12 + 16 * index
            let tag = String(decoding: bytes[record..<min(record + 4, bytes.count)], as: UTF8.self)
            tables[tag] = try u32(record + 8)
        }
        func table(_ tag: String) throws -> Int {
            guard let offset = tables[tag] else { throw Problem(text: "it has no \(tag) table") }
            return offset
        }
        let head = try table("head"), hhea = try table("hhea"), hmtx = try table("hmtx"), cmap = try table("cmap")
        unitsPerEm = try u16(head + 18)
        guard unitsPerEm > 0 else { throw Problem(text: "its units per em are 0") }
        boundingBox = [try i16(head + 36), try i16(head + 38), try i16(head + 40), try i16(head + 42)]
        ascent = try i16(hhea + 4)
        descent = try i16(hhea + 6)
        let metrics = try u16(hhea + 34)
        advances = try (0..<metrics).map { try u16(hmtx + 4 * $0) }
        guard !advances.isEmpty else { throw Problem(text: "it has no glyph widths") }
        // The Windows Unicode BMP subtable (3, 1), format 4.
        var subtable: Int?
        for index in 0..<(try u16(cmap + 2)) {
            let record = cmap + 4 + 8 * index
            if try u16(record) == 3, try u16(record + 2) == 1 { subtable = cmap + (try u32(record + 4)) }
        }
        guard let subtable, try u16(subtable) == 4 else { throw Problem(text: "it has no Unicode (3, 1) format 4 character map") }
        let segments = try u16(subtable + 6) / 2
        let ends = subtable + 14, starts = ends + 2 * segments + 2, deltas = starts + 2 * segments, ranges = deltas + 2 * segments
        var glyphs: [UInt32: UInt16] = [:]
        for segment in 0..<segments {
            let end = try u16(ends + 2 * segment), start = try u16(starts + 2 * segment)
            let delta = try u16(deltas + 2 * segment), range = try u16(ranges + 2 * segment)
            guard start <= end, end != 0xFFFF || start != 0xFFFF else { continue }
            for code in start...end {
                var glyph: Int
                if range == 0 {
                    glyph = (code + delta) & 0xFFFF
                } else {
                    let at = ranges + 2 * segment + range + 2 * (code - start)
                    glyph = try u16(at)
                    if glyph != 0 { glyph = (glyph + delta) & 0xFFFF }
                }
                if glyph != 0 { glyphs[UInt32(code)] = UInt16(glyph) }
            }
        }
        self.glyphs = glyphs
        self.data = data
    }

    /// The glyph of `scalar`, or 0 (the font's "missing" glyph).
    func glyph(_ scalar: Unicode.Scalar) -> UInt16 { glyphs[scalar.value] ?? 0 }

    /// The advance width of `glyph` in thousandths of the font size (PDF's glyph space).
    func width(_ glyph: UInt16) -> Int {
        let units = advances[min(Int(glyph), advances.count - 1)]
        return units * 1000 / unitsPerEm
    }

    /// The width of `text` at `size` points.
    func width(_ text: String, size: Double) -> Double {
        Double(text.unicodeScalars.reduce(0) { $0 + width(glyph($1)) }) * size / 1000
    }
}
