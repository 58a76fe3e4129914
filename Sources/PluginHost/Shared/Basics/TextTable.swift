/// Columns padded to their widest cell, two spaces apart, indented by two.
enum TextTable {
    static func render(header: [String], rows: [[String]]) -> String {
        let table = [header] + rows
        // Widths count Unicode scalars, not grapheme clusters: as wide for the ASCII names
        // and paths of a report, and much cheaper for a thousand rows.
        let cellWidths = table.map { $0.map(width) }
        var widths = [Int](repeating: 0, count: header.count)
        for row in cellWidths {
            for (column, width) in row.enumerated() { widths[column] = max(widths[column], width) }
        }
        var bytes: [UInt8] = []
        for (row, cells) in zip(cellWidths, table) {
            bytes.append(contentsOf: "  ".utf8)
            for (column, cell) in cells.enumerated() {
                bytes.append(contentsOf: cell.utf8)
                if column < cells.count - 1 {
                    bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: widths[column] - row[column] + 2))
                }
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The width of `text` in columns, counting Unicode scalars (a UTF-8 count for ASCII).
    private static func width(_ text: String) -> Int {
        let utf8 = text.utf8
        return utf8.allSatisfy { $0 < 0x80 } ? utf8.count : text.unicodeScalars.count
    }
}
