/// An aligned text table: columns sized by their widest cell (counting characters, not bytes).
struct Table {
    var header: [String]
    var rows: [[String]] = []
    /// The columns whose cells end at the column's right edge (amounts, so their digits line up).
    var rightAligned: Set<Int> = []

    func render() -> String {
        let columns = header.count
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.prefix(columns).enumerated() { widths[index] = max(widths[index], cell.count) }
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
}
