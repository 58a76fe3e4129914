/// A set of integers in `0..<capacity` that gives up its smallest member: a priority queue
/// of ranks as a tree of 64-bit words, so that inserting and taking the smallest cost a
/// handful of word operations (log base 64 of the capacity: 3 for 100,000 plugins).
struct RankQueue {
    /// The levels of the tree, one after another: level 0 has a bit per rank; each word
    /// of level `k + 1` has a bit per word of level `k` that is not zero. The last level
    /// is one word.
    private var words: [UInt64]
    /// Where each level starts in `words`.
    private let starts: [Int]

    init(capacity: Int) {
        var starts: [Int] = []
        var total = 0
        var size = max(capacity, 1)
        repeat {
            starts.append(total)
            size = (size + 63) / 64
            total += size
        } while size > 1
        self.starts = starts
        words = [UInt64](repeating: 0, count: total)
    }

    var isEmpty: Bool { words[words.count - 1] == 0 }

    mutating func insert(_ rank: Int) {
        var position = rank
        for start in starts {
            let word = start + position / 64
            let wasEmpty = words[word] == 0
            words[word] |= 1 << UInt64(position % 64)
            guard wasEmpty else { return }
            position /= 64
        }
    }

    mutating func popMin() -> Int? {
        guard !isEmpty else { return nil }
        // Down the tree along the lowest set bits.
        var position = 0
        for start in starts.reversed() {
            position = position * 64 + words[start + position].trailingZeroBitCount
        }
        // Clear it, and the summary bits of words left empty.
        var clear = position
        for start in starts {
            let word = start + clear / 64
            words[word] &= ~(1 << UInt64(clear % 64))
            guard words[word] == 0 else { break }
            clear /= 64
        }
        return position
    }
}
