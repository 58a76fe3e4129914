/// Strings kept as UTF-8 one after another in a single buffer: what the resolver sorts and
/// matches. It is smaller than an array of `String`s (about 10 bytes for a short plugin name
/// instead of 16, and no allocation of its own for a long one), and reading it in order
/// reads one buffer in order instead of following references into memory that the
/// manifests scattered.
struct NameTable {
    /// The bytes of every string, in order.
    private var bytes: [UInt8] = []
    /// For each string: where its bytes end; they start where the previous string's end.
    private var ends: [Int32] = []

    /// An empty table with room for `count` strings of `bytes` bytes in all.
    init(capacity count: Int, bytes: Int) {
        ends.reserveCapacity(count)
        self.bytes.reserveCapacity(bytes)
    }

    init(_ strings: some Sequence<String>) {
        for string in strings { append(string) }
    }

    /// The number of strings.
    var count: Int { ends.count }

    mutating func append(_ string: String) {
        let appended = string.utf8.withContiguousStorageIfAvailable { utf8 in
            bytes.append(contentsOf: utf8)
            return true
        }
        if appended == nil { bytes.append(contentsOf: string.utf8) }
        precondition(bytes.count < Int(Int32.max), "too many names")
        ends.append(Int32(truncatingIfNeeded: bytes.count))
    }

    mutating func append(contentsOf other: NameTable) {
        let offset = Int32(bytes.count)
        precondition(bytes.count + other.bytes.count < Int(Int32.max), "too many names")
        bytes.append(contentsOf: other.bytes)
        ends.append(contentsOf: other.ends.lazy.map { $0 + offset })
    }

    /// String `index`.
    subscript(index: Int) -> String {
        withUTF8 { bytes, ends in String(decoding: bytes[Self.bounds(of: index, ends: ends)], as: UTF8.self) }
    }

    /// Calls `body` with the bytes and the ends of the strings, to read many of them fast.
    func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Int32>) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBufferPointer { bytes in try ends.withUnsafeBufferPointer { ends in try body(bytes, ends) } }
    }

    /// Where string `index` is in the bytes, given the ends ``withUTF8(_:)`` passes.
    @inline(__always)
    static func bounds(of index: Int, ends: UnsafeBufferPointer<Int32>) -> Range<Int> {
        (index == 0 ? 0 : Int(ends[index - 1]))..<Int(ends[index])
    }
}
