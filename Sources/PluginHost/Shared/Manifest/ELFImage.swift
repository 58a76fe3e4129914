/// Reads the section table of a 64-bit ELF shared object without loading it.
///
/// Every offset and size taken from the file is checked against the file's size before it
/// is used, so a truncated or hostile file gives an ``ELFError``, never a crash.
struct ELFImage {
    /// A place to read bytes from: a file, or bytes in memory (tests and fuzzing).
    protocol Source {
        var size: UInt64 { get }
        func read(count: Int, at offset: UInt64) throws -> [UInt8]
    }

    struct Section {
        /// Where the name starts in the section name table.
        let nameOffset: Int
        let type: UInt32
        let offset: UInt64
        let size: UInt64
        /// The index of a related section (for the dynamic section: its string table).
        let link: UInt32
    }

    /// The machine this host runs on, as ELF's `e_machine` names it.
    static let hostMachine: UInt16 = {
        #if arch(x86_64)
        62
        #elseif arch(arm64)
        183
        #elseif arch(riscv64)
        243
        #else
        0
        #endif
    }()

    private static let headerSize = 64
    private static let sectionHeaderSize = 64
    private static let magic: [UInt8] = [0x7F, 0x45, 0x4C, 0x46]
    private static let maximumNameTableSize: UInt64 = 1 << 20

    /// Where a file's loadable segments lie once mapped, relative to its load base.
    struct Segments: Equatable, Sendable {
        /// All loadable segments: code, read-only data (type metadata, conformances), data.
        let whole: Range<UInt64>
        /// The executable ones, where return addresses into the file's code point.
        let code: Range<UInt64>?
    }

    let sections: [Section]
    /// Where the file's loadable segments lie once mapped; `nil` when it has none (or its
    /// program headers are damaged).
    let segments: Segments?
    private let source: any Source
    private let nameTable: [UInt8]

    /// Reads and checks the ELF header and the section table.
    ///
    /// - Throws: ``ELFError`` when the file is not a 64-bit little-endian ELF shared object
    ///   for this machine or its section table is damaged; the source's own error when
    ///   reading fails.
    init(source: any Source) throws {
        self.source = source
        guard source.size >= 4 else {
            throw source.size == 0 ? ELFError.empty : ELFError.notELF
        }
        let header = try source.read(count: Self.headerSize, at: 0)
        guard header.starts(with: Self.magic) else { throw ELFError.notELF }
        guard header.count == Self.headerSize else { throw ELFError.truncated("the ELF header") }
        guard header[4] == 2 else { throw ELFError.wrongClass }
        guard header[5] == 1 else { throw ELFError.wrongByteOrder }
        let fields = ByteReader(header)
        let type = fields.u16(16)
        guard type == 3 else { throw ELFError.notSharedObject(type: type) }
        let machine = fields.u16(18)
        guard machine == Self.hostMachine else { throw ELFError.wrongMachine(machine) }

        segments = Self.segments(source, programHeaders: fields.u64(0x20), entrySize: fields.u16(0x36), count: fields.u16(0x38))

        let tableOffset = fields.u64(0x28)
        let entrySize = fields.u16(0x3A)
        var count = UInt64(fields.u16(0x3C))
        var nameTableIndex = UInt64(fields.u16(0x3E))
        guard tableOffset != 0 else { throw ELFError.noSections }
        guard entrySize == UInt16(Self.sectionHeaderSize) else { throw ELFError.damaged("unexpected section header size \(entrySize)") }

        let first = try Self.read(source, count: UInt64(Self.sectionHeaderSize), at: tableOffset, what: "the section table")
        let firstHeader = ByteReader(first)
        if count == 0 { count = firstHeader.u64(0x20) }
        if nameTableIndex == 0xFFFF { nameTableIndex = UInt64(firstHeader.u32(0x28)) }
        guard count > 0, count <= (source.size - tableOffset) / UInt64(Self.sectionHeaderSize) else {
            throw ELFError.truncated("the section table")
        }
        guard nameTableIndex < count else { throw ELFError.damaged("section name table index \(nameTableIndex) out of range") }

        let table = ByteReader(
            try Self.read(source, count: count * UInt64(Self.sectionHeaderSize), at: tableOffset, what: "the section table"))
        let raw = (0..<Int(count)).map { index in
            let base = index * Self.sectionHeaderSize
            return (
                name: table.u32(base), type: table.u32(base + 4), offset: table.u64(base + 0x18), size: table.u64(base + 0x20),
                link: table.u32(base + 0x28))
        }
        let names = raw[Int(nameTableIndex)]
        guard names.size <= Self.maximumNameTableSize else { throw ELFError.damaged("section name table too large") }
        nameTable = try Self.read(source, count: names.size, at: names.offset, what: "the section name table")
        sections = raw.map { entry in
            Section(nameOffset: Int(entry.name), type: entry.type, offset: entry.offset, size: entry.size, link: entry.link)
        }
    }

    /// Where the ELF header at the start of `head` says the section table lies, when it
    /// says so plainly (a 64-bit little-endian ELF header with a section count) and the
    /// table lies within the `size` bytes of the file: for a reader that fetches the table
    /// ahead. ``init(source:)`` checks everything else.
    static func sectionTable(inHeader head: [UInt8], fileSize size: UInt64) -> Range<UInt64>? {
        guard head.count >= headerSize, head.starts(with: magic), head[4] == 2, head[5] == 1 else { return nil }
        let fields = ByteReader(head)
        let (offset, count) = (fields.u64(0x28), UInt64(fields.u16(0x3C)))
        guard count > 0, offset < size, count <= (size - offset) / UInt64(sectionHeaderSize) else { return nil }
        return offset..<offset + count * UInt64(sectionHeaderSize)
    }

    /// Whether a section is called `name`, compared in place.
    private func section(_ section: Section, isNamed name: [UInt8]) -> Bool {
        let start = section.nameOffset
        guard start >= 0, start + name.count < nameTable.count, nameTable[start + name.count] == 0 else { return false }
        return nameTable[start..<start + name.count].elementsEqual(name)
    }

    /// The build id the linker recorded (`.note.gnu.build-id`), in hexadecimal, as
    /// `readelf -n` prints it; `nil` when the file has none, or a damaged one.
    var buildID: String? {
        guard let note = try? contents(ofSection: ".note.gnu.build-id", maximumSize: 1024), note.count >= 16 else { return nil }
        let fields = ByteReader(note)
        let (nameSize, descriptionSize, type) = (Int(fields.u32(0)), Int(fields.u32(4)), fields.u32(8))
        let descriptionStart = 12 + (nameSize + 3) / 4 * 4
        guard type == 3, descriptionSize > 0, descriptionStart + descriptionSize <= note.count else { return nil }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        for byte in note[descriptionStart..<descriptionStart + descriptionSize] {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// The contents of the section called `name`, or `nil` when there is none.
    ///
    /// - Parameter maximumSize: The largest contents accepted.
    /// - Throws: ``ELFError`` when the section is larger than `maximumSize`, holds no
    ///   bytes in the file, or lies outside it.
    func contents(ofSection name: String, maximumSize: UInt64) throws -> [UInt8]? {
        let wanted = Array(name.utf8)
        guard let section = sections.first(where: { self.section($0, isNamed: wanted) }) else { return nil }
        guard section.type != 8 else { throw ELFError.damaged("section \(name) has no contents in the file") }
        guard section.size <= maximumSize else { throw ELFError.sectionTooLarge(name: name, size: section.size, limit: maximumSize) }
        return try Self.read(source, count: section.size, at: section.offset, what: "section \(name)")
    }

    /// The libraries the file names as `DT_NEEDED` in its dynamic section, such as
    /// `libDomain.so`: what the dynamic loader will load with it. Empty when the file has no
    /// dynamic section or it cannot be read (the dynamic loader then reports what is wrong).
    func neededLibraries() -> [String] {
        guard let dynamic = sections.first(where: { $0.type == 6 /* SHT_DYNAMIC */ }),
            dynamic.size <= 1 << 16, Int(dynamic.link) < sections.count,
            case let strings = sections[Int(dynamic.link)], strings.size <= Self.maximumNameTableSize,
            let entries = try? Self.read(source, count: dynamic.size, at: dynamic.offset, what: "the dynamic section"),
            let table = try? Self.read(source, count: strings.size, at: strings.offset, what: "the dynamic string table")
        else { return [] }
        let fields = ByteReader(entries)
        var needed: [String] = []
        for entry in 0..<entries.count / 16 {
            let tag = fields.u64(entry * 16)
            if tag == 0 { break }  // DT_NULL
            guard tag == 1 /* DT_NEEDED */, case let start = fields.u64(entry * 16 + 8), start < UInt64(table.count) else { continue }
            let name = table[Int(start)...].prefix { $0 != 0 }
            needed.append(String(decoding: name, as: UTF8.self))
        }
        return needed
    }

    /// The spans of the `PT_LOAD` segments, all and executable, from the program headers.
    private static func segments(_ source: any Source, programHeaders offset: UInt64, entrySize: UInt16, count: UInt16) -> Segments? {
        guard entrySize == 56, count > 0,
            let table = try? read(source, count: UInt64(count) * 56, at: offset, what: "the program headers")
        else { return nil }
        let fields = ByteReader(table)
        var whole = (lower: UInt64.max, upper: UInt64(0))
        var code = (lower: UInt64.max, upper: UInt64(0))
        for index in 0..<Int(count) where fields.u32(index * 56) == 1 {
            let address = fields.u64(index * 56 + 0x10)
            let (end, overflow) = address.addingReportingOverflow(fields.u64(index * 56 + 0x28))
            guard !overflow else { return nil }
            whole = (min(whole.lower, address), max(whole.upper, end))
            if fields.u32(index * 56 + 4) & 1 != 0 { code = (min(code.lower, address), max(code.upper, end)) }
        }
        guard whole.lower < whole.upper else { return nil }
        return Segments(whole: whole.lower..<whole.upper, code: code.lower < code.upper ? code.lower..<code.upper : nil)
    }

    /// - Parameter what: The part read, named only when it is missing.
    private static func read(_ source: any Source, count: UInt64, at offset: UInt64, what: @autoclosure () -> String) throws -> [UInt8] {
        guard offset <= source.size, count <= source.size - offset else { throw ELFError.truncated(what()) }
        let bytes = try source.read(count: Int(count), at: offset)
        guard bytes.count == Int(count) else { throw ELFError.truncated(what()) }
        return bytes
    }

}

/// Little-endian fixed-width fields at byte offsets of a buffer whose size the caller
/// has checked.
private struct ByteReader {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func u16(_ offset: Int) -> UInt16 { UInt16(value(offset, width: 2)) }
    func u32(_ offset: Int) -> UInt32 { UInt32(value(offset, width: 4)) }
    func u64(_ offset: Int) -> UInt64 { value(offset, width: 8) }

    /// The little-endian number of `width` bytes at `offset`.
    private func value(_ offset: Int, width: Int) -> UInt64 {
        precondition(offset >= 0 && offset + width <= bytes.count)
        var value: UInt64 = 0
        for index in (offset..<offset + width).reversed() { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}

/// Why a file is not a shared object this host can load.
enum ELFError: Error, Equatable, CustomStringConvertible {
    case empty
    case notELF
    case truncated(String)
    case wrongClass
    case wrongByteOrder
    case notSharedObject(type: UInt16)
    case wrongMachine(UInt16)
    case noSections
    case damaged(String)
    case sectionTooLarge(name: String, size: UInt64, limit: UInt64)

    var description: String {
        switch self {
        case .empty: "the file is empty"
        case .notELF: "not an ELF file"
        case .truncated(let part): "truncated ELF file: \(part) extends past the end of the file"
        case .wrongClass: "a 32-bit ELF file; plugins must be 64-bit"
        case .wrongByteOrder: "a big-endian ELF file; this host is little-endian"
        case .notSharedObject(let type):
            "an ELF \(type == 2 ? "executable" : type == 1 ? "object file" : "file of type \(type)"), not a shared object (build it with -emit-library)"
        case .wrongMachine(let machine):
            "built for another machine (ELF machine \(machine), this host is \(ELFImage.hostMachine))"
        case .noSections: "the ELF file has no section table"
        case .damaged(let detail): "damaged ELF file: \(detail)"
        case .sectionTooLarge(let name, let size, let limit): "section \(name) holds \(size) bytes, more than the \(limit) allowed"
        }
    }
}
