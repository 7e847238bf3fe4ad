/// An aligned text table: columns sized by their widest cell (counting characters, not bytes).
struct Table {
    var header: [String]
    var rows: [[String]] = []
    /// The columns whose cells end at the column's right edge (amounts, so their digits line up).
    var rightAligned: Set<Int> = []
    /// Stacked (narrower than the table), each cell under the first names its column (`Amount: -1,234.50`): for a
    /// table of values (a statement, the journal) that would otherwise lose which number is which.
    var labelledWhenStacked = false

    /// The table; when `width` (a terminal's columns) is given and the table is wider, each row stacked instead: its
    /// first cell on a line of its own (what does not fit goes on, indented by two), the rest under it, indented by
    /// four; each broken between words at the width — a terminal would otherwise break every line, rule and all,
    /// wherever the width ends.
    func render(width: Int? = nil) -> String {
        let columns = header.count
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.prefix(columns).enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        if let width, widths.reduce(0, +) + 2 * max(columns - 1, 0) > width {
            return rows.map { row in
                let first = Self.wrapped(row.first ?? "", width: width)
                let head = first.prefix(1) + first.dropFirst().flatMap { Self.wrapped($0, width: width - 2).map { "  " + $0 } }
                guard labelledWhenStacked else {
                    let rest = row.prefix(columns).dropFirst().filter { !$0.isEmpty }.joined(separator: "  ")
                    return (Array(head) + Self.wrapped(rest, width: width - Self.indent.count).map { Self.indent + $0 })
                        .joined(separator: "\n")
                }
                let cells = zip(header, row.prefix(columns)).dropFirst().filter { !$0.1.isEmpty }
                let labelled = cells.flatMap { name, cell in
                    Self.wrapped(name.prefix(1) + name.dropFirst().lowercased() + ": " + cell, width: width - Self.indent.count)
                        .enumerated().map { $0.offset == 0 ? Self.indent + $0.element : Self.indent + "  " + $0.element }
                }
                return (Array(head) + labelled).joined(separator: "\n")
            }.joined(separator: "\n")
        }
        func line(_ cells: [String]) -> String {
            cells.prefix(columns).enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                if rightAligned.contains(index) { return padding + cell }
                return index == columns - 1 ? cell : cell + padding
            }.joined(separator: "  ")
        }
        var lines = [line(header), line(widths.map { String(repeating: "─", count: $0) })]
        lines += rows.map(line)
        return lines.joined(separator: "\n")
    }

    private static let indent = "    "

    /// `text` in lines of at most `width` characters, broken at spaces (a word longer than that on a line of its own).
    static func wrapped(_ text: String, width: Int) -> [String] {
        guard !text.isEmpty else { return [] }
        var lines: [String] = [], current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= max(width, 1) {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
