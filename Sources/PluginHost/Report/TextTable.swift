/// Columns padded to their widest cell, two spaces apart, indented by two.
enum TextTable {
    static func render(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        // Unicode scalars, not grapheme clusters: as wide for the ASCII names and paths of a
        // report, and much cheaper to count for a thousand rows.
        let widths = header.indices.map { column in all.map { width($0[column]) }.max() ?? 0 }
        var text = ""
        text.reserveCapacity(all.count * (widths.reduce(0, +) + 2 * widths.count + 3))
        for row in all {
            text += "  "
            for (column, cell) in row.enumerated() {
                text += cell
                if column < row.count - 1 {
                    text += String(repeating: " ", count: widths[column] - width(cell) + 2)
                }
            }
            text += "\n"
        }
        return text
    }

    /// The width of `text` in columns, counting Unicode scalars (a UTF-8 count for ASCII).
    private static func width(_ text: String) -> Int {
        let utf8 = text.utf8
        return utf8.allSatisfy { $0 < 0x80 } ? utf8.count : text.unicodeScalars.count
    }
}
