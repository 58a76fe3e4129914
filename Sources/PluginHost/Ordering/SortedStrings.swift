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

    init(_ strings: [String]) {
        precondition(strings.count < Int(Int32.max), "too many strings to sort")
        var sorter = RadixSorter(strings)
        if sorter.isPlainASCII {
            sorter.sort()
            (order, startsGroup) = (sorter.order, sorter.startsGroup)
        } else {
            order = (0..<Int32(strings.count)).sorted { a, b in
                strings[Int(a)] != strings[Int(b)] ? strings[Int(a)] < strings[Int(b)] : a < b
            }
            startsGroup = order.indices.map { [order] in $0 == 0 || strings[Int(order[$0 - 1])] != strings[Int(order[$0])] }
        }
    }
}

/// The radix sort of ``SortedStrings``, eight bytes of the strings at a time: ``sortByKey(_:)``
/// orders a range by those bytes, and ranges that still tie go on to the next eight.
private struct RadixSorter {
    /// A string being sorted: where it is, and the eight bytes of it its range is sorted
    /// by. Entries move as a whole, so a pass reads and writes one array in order.
    private struct Entry {
        /// Eight bytes of the string as a big-endian number, zero past its end, from the
        /// multiple of 8 its range is sorted at.
        var key: UInt64
        /// The string's index.
        var index: Int32
        /// The string's length in bytes.
        var length: Int32
    }

    let strings: [String]
    private var entries: [Entry]
    private var spare: [Entry]
    /// For each position: whether its string differs from the one before.
    private(set) var startsGroup: [Bool]
    /// Whether every string is ASCII without NUL: a zero byte then means the string ended.
    private(set) var isPlainASCII = true

    /// Ranges of at most this many strings are sorted by insertion sort.
    private static var shortRange: Int { 24 }
    /// Ranges of at most this many strings (256 KiB of entries) fit in the caches with the
    /// spare room a counting sort needs.
    private static var cachedRange: Int { 16_384 }

    init(_ strings: [String]) {
        self.strings = strings
        var isPlainASCII = true
        var entries: [Entry] = []
        entries.reserveCapacity(strings.count)
        for (index, string) in strings.enumerated() {
            var key: UInt64 = 0
            let length = Self.chunk(of: string, at: 0, into: &key, checking: &isPlainASCII)
            entries.append(Entry(key: key, index: Int32(truncatingIfNeeded: index), length: Int32(truncatingIfNeeded: length)))
        }
        self.entries = entries
        self.isPlainASCII = isPlainASCII
        spare = []
        startsGroup = [Bool](repeating: false, count: strings.count)
    }

    /// The indices of the strings, in order.
    var order: [Int32] { entries.map(\.index) }

    mutating func sort() {
        // Ranges whose strings share their first `depth` bytes, a multiple of 8.
        var pending: [(range: Range<Int>, depth: Int)] = [(entries.indices, 0)]
        while let (range, depth) = pending.popLast() {
            if depth > 0 {
                for position in range {
                    var ignored = true
                    _ = Self.chunk(of: strings[Int(entries[position].index)], at: depth, into: &entries[position].key, checking: &ignored)
                }
            }
            sortByKey(range)
            // Runs of equal keys: equal strings, unless some go on past the key.
            var start = range.lowerBound
            while start < range.upperBound {
                var next = start + 1
                var longest = entries[start].length
                while next < range.upperBound && entries[next].key == entries[start].key {
                    longest = max(longest, entries[next].length)
                    next += 1
                }
                if next - start > 1 && Int(longest) > depth + 8 {
                    pending.append((start..<next, depth + 8))
                } else {
                    // Equal strings, in the order of their indices.
                    startsGroup[start] = true
                    if next - start > 1 { entries[start..<next].sort { $0.index < $1.index } }
                }
                start = next
            }
        }
        spare = []
    }

    /// Sorts `range` by its keys.
    private mutating func sortByKey(_ range: Range<Int>) {
        if spare.count < min(range.count, Self.cachedRange) {
            spare = [Entry](repeating: Entry(key: 0, index: 0, length: 0), count: min(entries.count, Self.cachedRange))
        }
        entries.withUnsafeMutableBufferPointer { entries in
            spare.withUnsafeMutableBufferPointer { spare in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: 8 * 256) { counts in
                    Self.sortByKey(range, of: entries, spare: spare, counts: counts)
                }
            }
        }
    }

    /// Sorts `range` of `entries` by key. A range larger than the caches hold is split in
    /// place by its most significant byte that varies (American flag sort); a smaller one
    /// is sorted a byte per pass from the least significant, by a stable counting sort
    /// through `spare`.
    private static func sortByKey(
        _ range: Range<Int>, of entries: UnsafeMutableBufferPointer<Entry>, spare: UnsafeMutableBufferPointer<Entry>,
        counts: UnsafeMutableBufferPointer<Int>
    ) {
        @inline(__always) func digit(_ key: UInt64, _ byte: Int) -> Int { Int(truncatingIfNeeded: key &>> UInt64(byte &* 8)) & 0xFF }
        if range.count <= shortRange {
            insertionSort(range, of: entries)
            return
        }
        counts.update(repeating: 0)
        for position in range {
            let key = entries[position].key
            for byte in 0..<8 { counts[byte &* 256 &+ digit(key, byte)] &+= 1 }
        }
        let first = entries[range.lowerBound].key
        let varying = (0..<8).filter { counts[$0 * 256 + digit(first, $0)] != range.count }
        guard let top = varying.last else { return }

        if range.count > cachedRange {
            // Each digit's bucket, then every entry swapped into its bucket.
            let base = top * 256
            var starts = [Int](repeating: 0, count: 257)
            starts[0] = range.lowerBound
            for value in 0..<256 { starts[value + 1] = starts[value] + counts[base + value] }
            var next = Array(starts[0..<256])
            for value in 0..<256 {
                while next[value] < starts[value + 1] {
                    var entry = entries[next[value]]
                    var target = digit(entry.key, top)
                    while target != value {
                        let slot = next[target]
                        next[target] = slot + 1
                        swap(&entry, &entries[slot])
                        target = digit(entry.key, top)
                    }
                    entries[next[value]] = entry
                    next[value] += 1
                }
            }
            for value in 0..<256 where starts[value + 1] - starts[value] > 1 {
                sortByKey(starts[value]..<starts[value + 1], of: entries, spare: spare, counts: counts)
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

    /// Sorts a short range by its keys.
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

    /// Sets `key` to bytes `depth..<depth + 8` of `string` as a big-endian number, zero past
    /// its end (so that a string sorts before its extensions); clears `plain` if a byte is
    /// NUL or not ASCII. Returns the string's length in bytes.
    @inline(__always)
    private static func chunk(of string: String, at depth: Int, into key: inout UInt64, checking plain: inout Bool) -> Int {
        let length = string.utf8.withContiguousStorageIfAvailable { bytes in
            if depth == 0 {
                // Bit 7 of `bad` ends up set by a byte that is NUL (0 - 1 wraps) or not ASCII.
                var bad: UInt8 = 0
                for byte in bytes { bad |= byte | (byte &- 1) }
                if bad & 0x80 != 0 { plain = false }
            }
            var value: UInt64 = 0
            let end = min(bytes.count, depth + 8)
            if depth < end {
                for offset in depth..<end { value = value << 8 | UInt64(bytes[offset]) }
                value <<= UInt64(8 * (depth + 8 - end))
            }
            key = value
            return bytes.count
        }
        guard let length else {
            // Every native string has contiguous storage; a bridged one would not, and is
            // sorted as a `String`.
            plain = false
            return 0
        }
        return length
    }
}
