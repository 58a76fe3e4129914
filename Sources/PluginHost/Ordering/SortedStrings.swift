/// Strings in sorted order, with equal strings grouped, found in time linear in the bytes
/// that tell them apart: the order the resolver ranks plugin names by, and the way it
/// matches every requirement to the plugin it names without a hash table.
///
/// Plugin names are ASCII, and for ASCII the byte order is the order of `String`'s `<`.
/// Such strings are sorted by a radix sort on their bytes, eight at a time held in a number
/// (a key) so that a pass reads one array in order instead of the strings themselves. The
/// key is first cut down to the bits that tell a range's strings apart, and then sorted by
/// counting, up to 11 of those bits per pass. Only ties go on to the next eight bytes.
/// Strings with other characters are compared as `String`s (canonical equivalence).
struct SortedStrings {
    /// Indices into the strings, in ascending order of the strings; equal strings in
    /// ascending order of their indices.
    let order: [Int32]
    /// For each position of ``order``: whether its string differs from the one before.
    let startsGroup: [Bool]

    /// Sorts the strings of `names`; indices are their positions in the table.
    init(_ names: NameTable) {
        var sorter = RadixSorter(names)
        if sorter.isPlainASCII {
            sorter.sort()
            (order, startsGroup) = (sorter.order, sorter.startsGroup)
        } else {
            let strings = (0..<names.count).map { names[$0] }
            order = (0..<Int32(strings.count)).sorted { a, b in
                strings[Int(a)] != strings[Int(b)] ? strings[Int(a)] < strings[Int(b)] : a < b
            }
            startsGroup = order.indices.map { [order] in $0 == 0 || strings[Int(order[$0 - 1])] != strings[Int(order[$0])] }
        }
    }

    init(_ strings: [String]) { self.init(NameTable(strings)) }
}

/// The radix sort of ``SortedStrings``, eight bytes of the strings at a time: ``sortByKey(_:)``
/// orders a range by those bytes, and ranges that still tie go on to the next eight.
private struct RadixSorter {
    /// A string being sorted: which it is, and the eight bytes of it its range is sorted
    /// by. Entries move as a whole, so a pass reads and writes one array in order; at 12
    /// bytes (the key in two halves keeps them 4-byte aligned) a pass moves a quarter less
    /// than it would at 16.
    private struct Entry {
        /// Eight bytes of the string as a big-endian number, zero past its end, from the
        /// multiple of 8 its range is sorted at, or, once the range is sorted, those bytes
        /// packed (see ``sortByKey(_:of:spare:)``): the high and the low half.
        private var high: UInt32
        private var low: UInt32
        /// The string's index, and in the top bit whether the string goes on past the key.
        private var tagged: UInt32

        init(key: UInt64, index: Int, continues: Bool) {
            (high, low) = (UInt32(truncatingIfNeeded: key >> 32), UInt32(truncatingIfNeeded: key))
            tagged = UInt32(truncatingIfNeeded: index) | (continues ? 1 << 31 : 0)
        }

        var key: UInt64 {
            get { UInt64(high) << 32 | UInt64(low) }
            set { (high, low) = (UInt32(truncatingIfNeeded: newValue >> 32), UInt32(truncatingIfNeeded: newValue)) }
        }
        var index: Int32 { Int32(bitPattern: tagged & ~(1 << 31)) }
        var continues: Bool { tagged & 1 << 31 != 0 }
    }

    private let names: NameTable
    private var entries: [Entry]
    private var spare: [Entry]
    /// For each position: whether its string differs from the one before.
    private(set) var startsGroup: [Bool]
    /// Whether every string is ASCII without NUL: a zero byte then means the string ended.
    private(set) var isPlainASCII = true

    /// Ranges of at most this many strings are sorted by insertion sort.
    private static var shortRange: Int { 24 }

    init(_ names: NameTable) {
        self.names = names
        var isPlainASCII = true
        var entries: [Entry] = []
        entries.reserveCapacity(names.count)
        names.withUTF8 { bytes, ends in
            var start = 0
            for index in 0..<names.count {
                let end = Int(ends[index])
                let string = UnsafeBufferPointer(rebasing: bytes[start..<end])
                // Bit 7 of `bad` ends up set by a byte that is NUL (0 - 1 wraps) or not ASCII.
                var bad: UInt8 = 0
                for byte in string { bad |= byte | (byte &- 1) }
                if bad & 0x80 != 0 { isPlainASCII = false }
                entries.append(Entry(key: Self.key(of: string, at: 0), index: index, continues: string.count > 8))
                start = end
            }
        }
        self.entries = entries
        self.isPlainASCII = isPlainASCII
        spare = []
        startsGroup = [Bool](repeating: false, count: names.count)
    }

    /// The indices of the strings, in order.
    var order: [Int32] { entries.map(\.index) }

    mutating func sort() {
        // Ranges whose strings share their first `depth` bytes, a multiple of 8.
        var pending: [(range: Range<Int>, depth: Int)] = [(entries.indices, 0)]
        while let (range, depth) = pending.popLast() {
            if depth > 0 {
                names.withUTF8 { bytes, ends in
                    for position in range {
                        let index = Int(entries[position].index)
                        let string = UnsafeBufferPointer(rebasing: bytes[NameTable.bounds(of: index, ends: ends)])
                        entries[position] = Entry(key: Self.key(of: string, at: depth), index: index, continues: string.count > depth + 8)
                    }
                }
            }
            sortByKey(range)
            // Runs of equal keys: equal strings, unless some go on past the key.
            entries.withUnsafeMutableBufferPointer { entries in
                var start = range.lowerBound
                while start < range.upperBound {
                    var next = start + 1
                    var continues = entries[start].continues
                    while next < range.upperBound && entries[next].key == entries[start].key {
                        continues = continues || entries[next].continues
                        next += 1
                    }
                    if next - start > 1 && continues {
                        pending.append((start..<next, depth + 8))
                    } else {
                        // Equal strings, already in the order of their indices: the entries
                        // start in that order and every sort of a range is stable.
                        startsGroup[start] = true
                    }
                    start = next
                }
            }
        }
        spare = []
    }

    /// Sorts `range` by its keys.
    private mutating func sortByKey(_ range: Range<Int>) {
        if spare.count < range.count {
            spare = [Entry](repeating: Entry(key: 0, index: 0, continues: false), count: entries.count)
        }
        entries.withUnsafeMutableBufferPointer { entries in
            spare.withUnsafeMutableBufferPointer { spare in
                Self.sortByKey(range, of: entries, spare: spare)
            }
        }
    }

    /// Sorts `range` of `entries` by key, through `spare`.
    ///
    /// The key is packed first: each of its bytes gets as many bits as the values it takes
    /// in the range need, numbered in order, and a byte that never varies gets none. The
    /// packed keys sort as the keys do, equal ones stay equal, and they are short: 16 bits
    /// for 10,000 plugins named `P0` to `P9999`, 20 for 100,000. They are then sorted by a
    /// stable counting sort of up to 11 bits per pass, from the least significant, so both
    /// of those take two passes; a sort a byte per pass would take 4 and 5.
    private static func sortByKey(
        _ range: Range<Int>, of entries: UnsafeMutableBufferPointer<Entry>, spare: UnsafeMutableBufferPointer<Entry>
    ) {
        if range.count <= shortRange {
            insertionSort(range, of: entries)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 8 * 256) { codes in
            let bits = packableBits(of: range, in: entries, codes: codes)
            guard bits > 0 else { return }
            // Up to 11 bits per pass (2,048 counts, 16 KiB) for a large range, 8 for a
            // small one, whose counts would cost more to go through than its entries.
            let widest = range.count > 4_096 ? 11 : 8
            let passes = (bits + widest - 1) / widest
            let width = (bits + passes - 1) / passes
            let mask = 1 << width - 1
            withUnsafeTemporaryAllocation(of: Int.self, capacity: passes << width) { counts in
                // The packed keys, and each pass's counts of its digits, in one pass.
                counts.update(repeating: 0)
                for position in range {
                    let key = entries[position].key
                    var packed: UInt64 = 0
                    for index in 0..<8 { packed |= codes[index &* 256 &+ Int(truncatingIfNeeded: key &>> UInt64(index &* 8)) & 0xFF] }
                    entries[position].key = packed
                    for pass in 0..<passes {
                        counts[pass &<< width &+ Int(truncatingIfNeeded: packed &>> UInt64(pass &* width)) & mask] &+= 1
                    }
                }
                // Each pass moves every entry to the other array, stably by its digit.
                var inSpare = false
                let offset = range.lowerBound
                for pass in 0..<passes {
                    let base = pass << width
                    let shift = UInt64(pass * width)
                    var next = 0
                    for slot in base..<(base + mask + 1) {
                        let count = counts[slot]
                        counts[slot] = next
                        next &+= count
                    }
                    if inSpare {
                        for position in 0..<range.count {
                            let entry = spare[position]
                            let slot = base &+ Int(truncatingIfNeeded: entry.key &>> shift) & mask
                            entries[offset &+ counts[slot]] = entry
                            counts[slot] &+= 1
                        }
                    } else {
                        for position in range {
                            let entry = entries[position]
                            let slot = base &+ Int(truncatingIfNeeded: entry.key &>> shift) & mask
                            spare[counts[slot]] = entry
                            counts[slot] &+= 1
                        }
                    }
                    inSpare.toggle()
                }
                if inSpare {
                    for position in 0..<range.count { entries[offset + position] = spare[position] }
                }
            }
        }
    }

    /// Fills `codes` with the packed bits of each value of each byte of the keys in `range`:
    /// byte `index` with value `value` packs to `codes[index * 256 + value]`, shifted into
    /// place. Returns how many bits the packed keys have.
    private static func packableBits(
        of range: Range<Int>, in entries: UnsafeMutableBufferPointer<Entry>, codes: UnsafeMutableBufferPointer<UInt64>
    ) -> Int {
        // First marks the values each byte takes.
        codes.update(repeating: 0)
        for position in range {
            let key = entries[position].key
            for index in 0..<8 { codes[index &* 256 &+ Int(truncatingIfNeeded: key &>> UInt64(index &* 8)) & 0xFF] = 1 }
        }
        var bits = 0
        for index in 0..<8 {
            var values: UInt64 = 0
            for slot in (index * 256)..<(index * 256 + 256) where codes[slot] != 0 {
                codes[slot] = values << UInt64(bits)
                values += 1
            }
            if values > 1 { bits += UInt64.bitWidth - (values - 1).leadingZeroBitCount }
        }
        return bits
    }

    /// Sorts a short range by key, stably.
    @inline(__always)
    private static func insertionSort(_ range: Range<Int>, of entries: UnsafeMutableBufferPointer<Entry>) {
        for position in range.dropFirst() {
            let entry = entries[position]
            var hole = position
            while hole > range.lowerBound && entries[hole - 1].key > entry.key {
                entries[hole] = entries[hole - 1]
                hole -= 1
            }
            entries[hole] = entry
        }
    }

    /// Bytes `depth..<depth + 8` of `string` as a big-endian number, zero past its end (so
    /// that a string sorts before its extensions).
    @inline(__always)
    private static func key(of string: UnsafeBufferPointer<UInt8>, at depth: Int) -> UInt64 {
        var value: UInt64 = 0
        let end = min(string.count, depth + 8)
        if depth < end {
            for offset in depth..<end { value = value << 8 | UInt64(string[offset]) }
            value <<= UInt64(8 * (depth + 8 - end))
        }
        return value
    }
}
