/// A set of integers in `0..<capacity` that gives up its smallest member: a priority queue
/// of ranks as a tree of 64-bit words, so that inserting and taking the smallest cost a
/// handful of word operations (log base 64 of the capacity: 3 for 100,000 plugins).
struct RankQueue {
    /// `levels[0]` has a bit per rank; each word of `levels[k + 1]` has a bit per word of
    /// `levels[k]` that is not zero.
    private var levels: [[UInt64]]

    init(capacity: Int) {
        var levels: [[UInt64]] = []
        var size = max(capacity, 1)
        repeat {
            let words = (size + 63) / 64
            levels.append([UInt64](repeating: 0, count: words))
            size = words
        } while size > 1
        self.levels = levels
    }

    var isEmpty: Bool { levels[levels.count - 1][0] == 0 }

    mutating func insert(_ rank: Int) {
        var position = rank
        for level in levels.indices {
            let word = position / 64
            let wasEmpty = levels[level][word] == 0
            levels[level][word] |= 1 << UInt64(position % 64)
            guard wasEmpty else { return }
            position = word
        }
    }

    mutating func popMin() -> Int? {
        guard !isEmpty else { return nil }
        // Down the tree along the lowest set bits.
        var position = 0
        for level in levels.indices.reversed() {
            position = position * 64 + levels[level][position].trailingZeroBitCount
        }
        // Clear it, and the summary bits of words left empty.
        var clear = position
        for level in levels.indices {
            let word = clear / 64
            levels[level][word] &= ~(1 << UInt64(clear % 64))
            guard levels[level][word] == 0 else { break }
            clear = word
        }
        return position
    }
}
