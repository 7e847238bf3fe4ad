import Foundation

/// A small PDF 1.4 writer for receipts: A4 pages of text lines in one embedded TrueType font.
///
/// The font is embedded whole as a CIDFontType2 under a Type0 font with `Identity-H` encoding, so each character is
/// written as its glyph id (two bytes) and any script the font covers (Cyrillic) shows in every viewer; a `ToUnicode`
/// map lets viewers and `pdftotext` copy the text back out. Lines that do not fit the value column are wrapped at
/// spaces, and a word wider than the column (a hash) is broken between characters. Pages are added as needed.
struct PDFWriter {
    private let font: TrueTypeFont
    private var pages: [String] = []
    private var page = ""
    private var y: Double
    /// The glyphs used, with the text each stands for (for `ToUnicode` and the widths).
    private var used: [UInt16: Unicode.Scalar] = [:]

    static let pageWidth = 595.28, pageHeight = 841.89, margin = 50.0
    static let labelWidth = 170.0
    static let size = 9.5, lineHeight = 13.0

    init(font: TrueTypeFont) {
        self.font = font
        y = Self.pageHeight - Self.margin
    }

    mutating func heading(_ text: String) {
        line(text, x: Self.margin, size: 15, advance: 22)
        page += String(format: "0.5 w %.2f %.2f m %.2f %.2f l S\n", Self.margin, y + 2, Self.pageWidth - Self.margin, y + 2)
    }

    mutating func subheading(_ text: String) { line(text, x: Self.margin, size: 11.5, advance: 16) }

    mutating func gap() { y -= 6 }

    /// A label and its value, each wrapped to its column (a long label — "Налоговый период или код таможенного органа
    /// (107)" — was drawn on in one line under the value); the row is as tall as the taller of the two.
    mutating func row(label: String, value: String) {
        let labelLines = wrap(label, width: Self.labelWidth - 8, size: Self.size)
        var valueX = Self.margin + Self.labelWidth
        var lines = wrap(value, width: Self.pageWidth - Self.margin - valueX, size: Self.size)
        // A value of one long word (a hash) goes under its label at the page's width, so it stays on one line.
        let full = Self.pageWidth - 2 * Self.margin - 12
        var under = false
        if lines.count > 1, !value.contains(" "), font.width(value, size: Self.size) <= full {
            valueX = Self.margin + 12
            lines = [value]
            under = true
        }
        let height = under ? labelLines.count + lines.count : max(labelLines.count, lines.count)
        ensureRoom(Self.lineHeight * Double(height))
        let top = y
        for (index, line) in labelLines.enumerated() {
            y = top - Self.lineHeight * Double(index)
            text(line, x: Self.margin, size: Self.size, gray: 0.35)
        }
        let valueTop = under ? top - Self.lineHeight * Double(labelLines.count) : top
        for (index, line) in lines.enumerated() {
            y = valueTop - Self.lineHeight * Double(index)
            text(line, x: valueX, size: Self.size, gray: 0)
        }
        y = top - Self.lineHeight * Double(height)
    }

    /// A line of text, wrapped to the page (a statement's heading names a long account title).
    private mutating func line(_ text: String, x: Double, size: Double, advance: Double) {
        for part in wrap(text, width: Self.pageWidth - Self.margin - x, size: size) {
            ensureRoom(advance)
            self.text(part, x: x, size: size, gray: 0)
            y -= advance
        }
    }

    private mutating func ensureRoom(_ height: Double) {
        if y - height < Self.margin, !page.isEmpty {
            pages.append(page)
            page = ""
            y = Self.pageHeight - Self.margin
        }
    }

    private mutating func text(_ text: String, x: Double, size: Double, gray: Double) {
        var hex = ""
        for scalar in text.unicodeScalars {
            let glyph = font.glyph(scalar)
            if used[glyph] == nil { used[glyph] = scalar }
            hex += String(format: "%04X", glyph)
        }
        page += String(format: "BT %.2f g /F1 %.2f Tf 1 0 0 1 %.2f %.2f Tm <", gray, size, x, y - size) + hex + "> Tj ET\n"
    }

    /// `text` in lines no wider than `width`.
    private func wrap(_ text: String, width: Double, size: Double) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            let candidate = current.isEmpty ? word : current + " " + word
            if font.width(candidate, size: size) <= width {
                current = candidate
                continue
            }
            if !current.isEmpty { lines.append(current) }
            current = ""
            for character in word {
                if font.width(current + String(character), size: size) > width, !current.isEmpty {
                    lines.append(current)
                    current = ""
                }
                current.append(character)
            }
        }
        lines.append(current)
        return lines
    }

    /// The whole file.
    mutating func finish() -> Data {
        if !page.isEmpty || pages.isEmpty { pages.append(page) }
        var objects: [Data] = []
        func add(_ text: String) -> Int { objects.append(Data(text.utf8)); return objects.count }
        func stream(_ dictionary: String, _ body: Data) -> Int {
            var data = Data("<< \(dictionary) /Length \(body.count) >>\nstream\n".utf8)
            data.append(body)
            data.append(Data("\nendstream".utf8))
            objects.append(data)
            return objects.count
        }
        let font = self.font
        let glyphs = used.keys.sorted()
        let widths = glyphs.map { "\($0) [\(font.width($0))]" }.joined(separator: " ")
        let scale = { (units: Int) in units * 1000 / font.unitsPerEm }
        let box = font.boundingBox.map(scale).map(String.init).joined(separator: " ")
        let fontFile = stream("/Length1 \(font.data.count)", font.data)
        let descriptor = add("""
            << /Type /FontDescriptor /FontName /DejaVuSans /Flags 32 /FontBBox [\(box)] /ItalicAngle 0 \
            /Ascent \(scale(font.ascent)) /Descent \(scale(font.descent)) /CapHeight \(scale(font.ascent)) /StemV 80 \
            /FontFile2 \(fontFile) 0 R >>
            """)
        let cidFont = add("""
            << /Type /Font /Subtype /CIDFontType2 /BaseFont /DejaVuSans \
            /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> \
            /FontDescriptor \(descriptor) 0 R /CIDToGIDMap /Identity /DW 600 /W [\(widths)] >>
            """)
        let toUnicode = stream("", Data(Self.toUnicode(glyphs.map { ($0, used[$0]!) }).utf8))
        let type0 = add("""
            << /Type /Font /Subtype /Type0 /BaseFont /DejaVuSans /Encoding /Identity-H \
            /DescendantFonts [\(cidFont) 0 R] /ToUnicode \(toUnicode) 0 R >>
            """)
        // Pages: the tree's number is known before its kids are written (it is the next object).
        let pagesNumber = objects.count + 1
        objects.append(Data())
        var kids: [Int] = []
        for content in pages {
            let contents = stream("", Data(content.utf8))
            kids.append(add("""
                << /Type /Page /Parent \(pagesNumber) 0 R /MediaBox [0 0 \(Self.pageWidth) \(Self.pageHeight)] \
                /Resources << /Font << /F1 \(type0) 0 R >> >> /Contents \(contents) 0 R >>
                """))
        }
        objects[pagesNumber - 1] = Data("<< /Type /Pages /Kids [\(kids.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(kids.count) >>".utf8)
        let catalog = add("<< /Type /Catalog /Pages \(pagesNumber) 0 R >>")

        var file = Data("%PDF-1.4\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(file.count)
            file.append(Data("\(index + 1) 0 obj\n".utf8))
            file.append(object)
            file.append(Data("\nendobj\n".utf8))
        }
        let xref = file.count
        var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { table += String(format: "%010d 00000 n \n", offset) }
        table += "trailer\n<< /Size \(objects.count + 1) /Root \(catalog) 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        file.append(Data(table.utf8))
        return file
    }

    /// A CMap from the glyph ids used back to their Unicode text (UTF-16BE), at most 100 entries a block.
    static func toUnicode(_ pairs: [(UInt16, Unicode.Scalar)]) -> String {
        var text = """
            /CIDInit /ProcSet findresource begin
            12 dict begin
            begincmap
            /CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
            /CMapName /Adobe-Identity-UCS def
            /CMapType 2 def
            1 begincodespacerange
            <0000> <FFFF>
            endcodespacerange

            """
        var start = 0
        while start < pairs.count {
            let block = pairs[start..<min(start + 100, pairs.count)]
            text += "\(block.count) beginbfchar\n"
            for (glyph, scalar) in block {
                let utf16 = String(scalar).utf16.map { String(format: "%04X", $0) }.joined()
                text += String(format: "<%04X> <", glyph) + utf16 + ">\n"
            }
            text += "endbfchar\n"
            start += 100
        }
        text += "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
        return text
    }
}
