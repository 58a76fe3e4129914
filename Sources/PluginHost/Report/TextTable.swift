/// Columns padded to their widest cell, two spaces apart, indented by two.
enum TextTable {
    static func render(header: [String], rows: [[String]]) -> String {
        // Every cell's width, row after row, counted once: for the columns' widths, then for
        // each cell's padding. Widths count Unicode scalars, not grapheme clusters: as wide
        // for the ASCII names and paths of a report, and much cheaper for a thousand rows.
        var widths = header.map(width)
        var cellWidths: [Int] = []
        cellWidths.reserveCapacity((rows.count + 1) * header.count)
        cellWidths.append(contentsOf: widths)
        var bytes = 0
        for row in rows {
            for (column, cell) in row.enumerated() {
                let cellWidth = width(cell)
                cellWidths.append(cellWidth)
                widths[column] = max(widths[column], cellWidth)
                bytes += cell.utf8.count
            }
        }
        // Written in place, once: a report of a thousand plugins has eight thousand cells.
        // Every cell is padded to its column's width in columns and holds at least as many
        // bytes as columns, so this is room enough.
        let capacity = (rows.count + 1) * (widths.reduce(0, +) + 2 * widths.count + 1) + bytes
            + header.reduce(0) { $0 + $1.utf8.count }
        return String(unsafeUninitializedCapacity: capacity) { output in
            var end = 0
            var cell = 0
            func write(_ row: [String]) {
                output[end] = 0x20
                output[end + 1] = 0x20
                end += 2
                for (column, text) in row.enumerated() {
                    end = copy(text, into: output, at: end)
                    if column < row.count - 1 {
                        let padding = widths[column] - cellWidths[cell] + 2
                        output[end..<end + padding].initialize(repeating: 0x20)
                        end += padding
                    }
                    cell += 1
                }
                output[end] = 0x0A
                end += 1
            }
            write(header)
            for row in rows { write(row) }
            return end
        }
    }

    /// The width of `text` in columns, counting Unicode scalars (a UTF-8 count for ASCII).
    private static func width(_ text: String) -> Int {
        let utf8 = text.utf8
        let isASCII = utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 < 0x80 } } ?? utf8.allSatisfy { $0 < 0x80 }
        return isASCII ? utf8.count : text.unicodeScalars.count
    }

    /// Copies the UTF-8 of `text` into `output` at `offset`; returns where it ends.
    private static func copy(_ text: String, into output: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 in
            _ = UnsafeMutableBufferPointer(rebasing: output[offset..<offset + utf8.count]).initialize(from: utf8)
            return offset + utf8.count
        }
        if let copied { return copied }
        var end = offset
        for byte in text.utf8 {
            output[end] = byte
            end += 1
        }
        return end
    }
}
