/// A set of integers in `0..<capacity` that gives up its smallest member: a priority queue
/// of ranks as a tree of 64-bit words, `levels` deep, so that inserting and taking the
/// smallest cost a handful of word operations.
///
/// Level 0 has a bit per rank; each word of level `k + 1` has a bit per word of level `k`,
/// set while that word is not zero; the top level is one word. The depth is part of the
/// type so that every walk through the levels is unrolled: three levels hold 262,144 ranks,
/// six any `Int32`. (A depth chosen at run time made Kahn's algorithm over 100,000 plugins
/// about a fifth slower.)
struct RankQueue<let levels: Int>: ~Copyable {
    /// How many ranks a queue of this depth can hold.
    static var capacity: Int { 1 << (6 * levels) }

    /// The levels of the tree, one after another.
    private let words: UnsafeMutablePointer<UInt64>
    /// Where each level starts in `words`.
    private let starts: UnsafeMutablePointer<Int>

    /// An empty queue of the ranks `0..<capacity`.
    init(capacity: Int) {
        precondition(levels > 0 && capacity <= Self.capacity, "\(capacity) ranks do not fit a RankQueue of \(levels) levels")
        starts = .allocate(capacity: levels)
        var total = 0
        var size = max(capacity, 1)
        for level in 0..<levels {
            size = (size + 63) / 64
            starts[level] = total
            total += size
        }
        words = .allocate(capacity: total)
        words.initialize(repeating: 0, count: total)
    }

    deinit {
        words.deallocate()
        starts.deallocate()
    }

    var isEmpty: Bool { words[starts[levels - 1]] == 0 }

    /// Inserts `rank` if `condition` holds, without a branch on it: the bits it sets are
    /// zero when it does not.
    @inline(__always)
    mutating func insert(_ rank: Int, if condition: Bool = true) {
        let bit: UInt64 = condition ? 1 : 0
        for level in 0..<levels {
            words[starts[level] &+ rank &>> (6 &* (level &+ 1))] |= bit &<< UInt64(rank &>> (6 &* level) & 63)
        }
    }

    /// The smallest rank in the queue, left in it.
    @inline(__always)
    var min: Int? {
        guard !isEmpty else { return nil }
        // Down the tree along the lowest set bits.
        var rank = 0
        for level in (0..<levels).reversed() {
            rank = rank &<< 6 &+ words[starts[level] &+ rank].trailingZeroBitCount
        }
        return rank
    }

    /// Removes the smallest rank from the queue and returns it.
    @inline(__always)
    mutating func popMin() -> Int? {
        guard let rank = min else { return nil }
        // Clear it, and the summary bits of words left empty.
        for level in 0..<levels {
            let word = starts[level] &+ rank &>> (6 &* (level &+ 1))
            words[word] &= ~(1 &<< UInt64(rank &>> (6 &* level) & 63))
            guard words[word] == 0 else { break }
        }
        return rank
    }
}
