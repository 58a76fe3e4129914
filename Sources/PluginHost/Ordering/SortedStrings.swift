/// Strings in sorted order, with equal strings grouped, found in time linear in the bytes
/// that tell them apart: the order the resolver ranks plugin names by, and the way it
/// matches every requirement to the plugin it names without a hash table.
///
/// Plugin names are ASCII, and for ASCII the byte order is the order of `String`'s `<`.
/// Such strings are sorted by a radix sort on their bytes, eight at a time held in a number
/// (a key) so that a pass reads one array in order instead of the strings themselves: a
/// range larger than the caches is split in place by its most significant byte that varies,
/// and a range that fits is sorted by counting, a byte per pass from the least significant.
/// Only the bytes that vary cost a pass, and only ties go on to the next eight bytes.
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
        /// multiple of 8 its range is sorted at: the high and the low half.
        private var high: UInt32
        private var low: UInt32
        /// The string's index, and in the top bit whether the string goes on past the key.
        private var tagged: UInt32

        init(key: UInt64, index: Int, continues: Bool) {
            (high, low) = (UInt32(truncatingIfNeeded: key >> 32), UInt32(truncatingIfNeeded: key))
            tagged = UInt32(truncatingIfNeeded: index) | (continues ? 1 << 31 : 0)
        }

        var key: UInt64 { UInt64(high) << 32 | UInt64(low) }
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
    /// Ranges of at most this many strings (768 KiB of entries, and as much spare room) are
    /// sorted by counting passes; larger ones are first split in place, so that the spare
    /// room stays small and the passes stay within the caches. Measured at 10,000 and
    /// 100,000 plugins: faster than 16,384 at both; counting passes over the whole range
    /// were no faster (the spare room costs a page fault per 4 KiB).
    private static var cachedRange: Int { 65_536 }

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
                        // Equal strings, in the order of their indices.
                        startsGroup[start] = true
                        if next - start > 1 { Self.insertionSort(start..<next, of: entries) { $0.index } }
                    }
                    start = next
                }
            }
        }
        spare = []
    }

    /// Sorts `range` by its keys.
    private mutating func sortByKey(_ range: Range<Int>) {
        if spare.count < min(range.count, Self.cachedRange) {
            spare = [Entry](repeating: Entry(key: 0, index: 0, continues: false), count: min(entries.count, Self.cachedRange))
        }
        entries.withUnsafeMutableBufferPointer { entries in
            spare.withUnsafeMutableBufferPointer { spare in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: 8 * 256) { counts in
                    Self.sortByKey(range, of: entries, varying: 0..<8, spare: spare, counts: counts)
                }
            }
        }
    }

    /// Sorts `range` of `entries` by key, given the bytes of the key that may vary in it. A
    /// range larger than the caches hold is split in place by its most significant byte
    /// that varies (American flag sort); a smaller one is sorted a byte per pass from the
    /// least significant, by a stable counting sort through `spare`.
    private static func sortByKey(
        _ range: Range<Int>, of entries: UnsafeMutableBufferPointer<Entry>, varying candidates: Range<Int>,
        spare: UnsafeMutableBufferPointer<Entry>, counts: UnsafeMutableBufferPointer<Int>
    ) {
        @inline(__always) func digit(_ key: UInt64, _ byte: Int) -> Int { Int(truncatingIfNeeded: key &>> UInt64(byte &* 8)) & 0xFF }
        if range.count <= shortRange {
            insertionSort(range, of: entries) { $0.key }
            return
        }
        // Only the bytes that may vary are counted: the ones the whole range shares a value
        // of need no pass.
        counts.update(repeating: 0)
        for position in range {
            let key = entries[position].key
            for byte in candidates { counts[byte &* 256 &+ digit(key, byte)] &+= 1 }
        }
        let first = entries[range.lowerBound].key
        let varying = candidates.filter { counts[$0 * 256 + digit(first, $0)] != range.count }
        guard let top = varying.last else { return }

        if range.count > cachedRange {
            // Each digit's bucket, then every entry swapped into its bucket.
            let base = top * 256
            withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * 256 + 1) { buckets in
                let (starts, next) = (buckets.prefix(257), UnsafeMutableBufferPointer(rebasing: buckets.suffix(256)))
                buckets[0] = range.lowerBound
                for value in 0..<256 { buckets[value + 1] = buckets[value] &+ counts[base &+ value] }
                for value in 0..<256 { next[value] = starts[value] }
                for value in 0..<256 {
                    while next[value] < starts[value + 1] {
                        var entry = entries[next[value]]
                        var target = digit(entry.key, top)
                        while target != value {
                            let slot = next[target]
                            next[target] = slot &+ 1
                            swap(&entry, &entries[slot])
                            target = digit(entry.key, top)
                        }
                        entries[next[value]] = entry
                        next[value] &+= 1
                    }
                }
                // The bytes below the split one that varied here may vary in a bucket.
                let below = (varying.first ?? top)..<top
                for value in 0..<256 where starts[value + 1] - starts[value] > 1 {
                    sortByKey(starts[value]..<starts[value + 1], of: entries, varying: below, spare: spare, counts: counts)
                }
            }
            return
        }

        var inSpare = false
        let offset = range.lowerBound
        for byte in varying {
            let base = byte * 256
            var next = 0
            for slot in base..<(base + 256) {
                let count = counts[slot]
                counts[slot] = next
                next &+= count
            }
            if inSpare {
                for position in 0..<range.count {
                    let entry = spare[position]
                    let slot = base &+ digit(entry.key, byte)
                    entries[offset &+ counts[slot]] = entry
                    counts[slot] &+= 1
                }
            } else {
                for position in range {
                    let entry = entries[position]
                    let slot = base &+ digit(entry.key, byte)
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

    /// Sorts a short range by `order` of its entries.
    @inline(__always)
    private static func insertionSort<Order: Comparable>(
        _ range: Range<Int>, of entries: UnsafeMutableBufferPointer<Entry>, by order: (Entry) -> Order
    ) {
        for position in range.dropFirst() {
            let entry = entries[position]
            var hole = position
            while hole > range.lowerBound && order(entries[hole - 1]) > order(entry) {
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
