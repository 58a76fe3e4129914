/// Columns padded to their widest cell, two spaces apart, indented by two.
enum TextTable {
    static func render(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        // Unicode scalars, not grapheme clusters: as wide for the ASCII names and paths of a
        // report, and much cheaper to count for a thousand rows.
        let cellWidths = all.map { row in row.map(width) }
        let widths = header.indices.map { column in cellWidths.lazy.map { $0[column] }.max() ?? 0 }
        // Built as bytes: a report of a thousand plugins has eight thousand cells.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(all.count * (widths.reduce(0, +) + 2 * widths.count + 3) + 64)
        for (row, cells) in all.enumerated() {
            bytes.append(contentsOf: [0x20, 0x20])
            for (column, cell) in cells.enumerated() {
                bytes.append(contentsOf: cell.utf8)
                if column < cells.count - 1 {
                    bytes.append(contentsOf: repeatElement(0x20, count: widths[column] - cellWidths[row][column] + 2))
                }
            }
            bytes.append(0x0A)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The width of `text` in columns, counting Unicode scalars (a UTF-8 count for ASCII).
    private static func width(_ text: String) -> Int {
        let utf8 = text.utf8
        return utf8.allSatisfy { $0 < 0x80 } ? utf8.count : text.unicodeScalars.count
    }
}
