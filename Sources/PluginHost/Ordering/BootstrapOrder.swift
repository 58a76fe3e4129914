/// The plugins a resolution keeps, in bootstrap order: a permutation of the candidates it
/// was given, which reads like an array of them without copying any (copying a hundred
/// thousand candidates in an order unrelated to their place in memory costs more than
/// ordering them).
struct BootstrapOrder: RandomAccessCollection, Equatable, Sendable {
    private let candidates: [PluginCandidate]
    /// Indices into `candidates`.
    private let positions: [Int32]

    /// No plugins.
    init() {
        candidates = []
        positions = []
    }

    /// The candidates at `positions`, in that order.
    init(_ candidates: [PluginCandidate], positions: [Int32]) {
        self.candidates = candidates
        self.positions = positions
    }

    var startIndex: Int { 0 }
    var endIndex: Int { positions.count }
    subscript(position: Int) -> PluginCandidate { candidates[Int(positions[position])] }

    static func == (left: BootstrapOrder, right: BootstrapOrder) -> Bool { left.elementsEqual(right) }
}
