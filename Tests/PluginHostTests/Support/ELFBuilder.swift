/// Builds small 64-bit ELF images in memory, with chosen sections and chosen defects.
struct ELFBuilder {
    var fileClass: UInt8 = 2
    var byteOrder: UInt8 = 1
    var type: UInt16 = 3
    var machine: UInt16 = 62
    var sections: [(name: String, contents: [UInt8])] = []

    init(sections: [(name: String, contents: [UInt8])] = []) {
        self.sections = sections
    }

    /// An image with a manifest section holding `json`.
    static func plugin(manifest json: String) -> ELFBuilder {
        ELFBuilder(sections: [(".text", [0x90, 0x90]), (".plugin_host_manifest", Array(json.utf8))])
    }

    /// The image: header, section contents, section name table, section headers.
    func build() -> [UInt8] {
        var names: [UInt8] = [0]
        var nameOffsets: [UInt32] = []
        for section in sections + [(name: ".shstrtab", contents: [])] {
            nameOffsets.append(UInt32(names.count))
            names += Array(section.name.utf8) + [0]
        }
        var bytes = [UInt8](repeating: 0, count: 64)
        var headers: [(name: UInt32, type: UInt32, offset: UInt64, size: UInt64)] = [(0, 0, 0, 0)]
        for (index, section) in sections.enumerated() {
            headers.append((nameOffsets[index], 1, UInt64(bytes.count), UInt64(section.contents.count)))
            bytes += section.contents
        }
        headers.append((nameOffsets[sections.count], 3, UInt64(bytes.count), UInt64(names.count)))
        bytes += names
        while bytes.count % 8 != 0 { bytes.append(0) }
        let tableOffset = UInt64(bytes.count)
        for header in headers {
            var entry = [UInt8](repeating: 0, count: 64)
            put(header.name, at: 0, in: &entry)
            put(header.type, at: 4, in: &entry)
            put(header.offset, at: 0x18, in: &entry)
            put(header.size, at: 0x20, in: &entry)
            bytes += entry
        }
        bytes.replaceSubrange(0..<4, with: [0x7F, 0x45, 0x4C, 0x46])
        bytes[4] = fileClass
        bytes[5] = byteOrder
        bytes[6] = 1
        put(type, at: 16, in: &bytes)
        put(machine, at: 18, in: &bytes)
        put(tableOffset, at: 0x28, in: &bytes)
        put(UInt16(64), at: 0x34, in: &bytes)
        put(UInt16(64), at: 0x3A, in: &bytes)
        put(UInt16(headers.count), at: 0x3C, in: &bytes)
        put(UInt16(headers.count - 1), at: 0x3E, in: &bytes)
        return bytes
    }

    private func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<MemoryLayout<T>.size {
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index))
        }
    }
}
