import PluginABI

/// A JSON value to print, with object keys kept in the order given.
enum JSONOutput: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONOutput])
    case object([(String, JSONOutput)])

    static func == (lhs: JSONOutput, rhs: JSONOutput) -> Bool { lhs.rendered() == rhs.rendered() }

    /// A parsed value, its object keys sorted.
    init(_ value: Setting) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .number(let number): self = .number(number)
        case .string(let string): self = .string(string)
        case .array(let values): self = .array(values.map(JSONOutput.init))
        case .object(let members): self = .object(members.keys.sorted().map { ($0, JSONOutput(members[$0]!)) })
        }
    }

    /// The value as compact JSON text.
    func rendered() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1024)
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func write(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes += "null".utf8
        case .bool(let value): bytes += (value ? "true" : "false").utf8
        case .number(let value):
            if value.rounded() == value && abs(value) < 0x1p53 {
                bytes += String(Int64(value)).utf8
            } else if value.isFinite {
                bytes += String(value).utf8
            } else {
                bytes += "null".utf8
            }
        case .string(let value): Self.writeString(value, to: &bytes)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Writes `value` quoted, escaping what JSON requires (quote, backslash, control
    /// characters and DEL); the runs of bytes between those are copied at once.
    private static func writeString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var run = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F else { continue }
                bytes += utf8[run..<index]
                switch byte {
                case UInt8(ascii: "\""): bytes += #"\""#.utf8
                case UInt8(ascii: "\\"): bytes += #"\\"#.utf8
                case UInt8(ascii: "\n"): bytes += #"\n"#.utf8
                case UInt8(ascii: "\r"): bytes += #"\r"#.utf8
                case UInt8(ascii: "\t"): bytes += #"\t"#.utf8
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes += #"\u00"#.utf8
                    bytes += [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                }
                run = index + 1
            }
            bytes += utf8[run...]
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
