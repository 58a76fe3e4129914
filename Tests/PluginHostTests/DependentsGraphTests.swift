import Testing

@testable import PluginHost

@Suite("DependentsGraph and RankQueue: Kahn's algorithm, smallest ready node first")
struct DependentsGraphTests {
    /// Deterministic pseudo-random numbers, so that a failure can be replayed.
    private struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The graph of `edges` (dependency, dependent) over `count` nodes.
    private func graph(_ count: Int, _ edges: [(Int, Int)]) -> DependentsGraph {
        let sorted = edges.sorted { $0 < $1 }
        var counts = [Int32](repeating: 0, count: count)
        for (_, dependent) in sorted { counts[dependent] += 1 }
        var builder = DependentsGraph.Builder(dependencyCounts: counts, edges: sorted.count)
        for (dependency, dependent) in sorted { builder.addEdge(from: dependency, to: dependent) }
        return builder.build()
    }

    /// The order by definition: repeatedly the smallest node whose dependencies are all
    /// placed.
    private func expectedOrder(_ count: Int, _ edges: [(Int, Int)], ignoring ignored: Set<Int> = []) -> [Int32] {
        var waiting = [Int](repeating: 0, count: count)
        var dependents = [[Int]](repeating: [], count: count)
        for (dependency, dependent) in edges where !ignored.contains(dependency) {
            waiting[dependent] += 1
            dependents[dependency].append(dependent)
        }
        var ready = MinHeap()
        for node in 0..<count where waiting[node] == 0 { ready.insert(node) }
        var order: [Int32] = []
        while let node = ready.popMin() {
            order.append(Int32(node))
            for dependent in dependents[node] {
                waiting[dependent] -= 1
                if waiting[dependent] == 0 { ready.insert(dependent) }
            }
        }
        return order
    }

    /// A binary heap: the reference queue.
    private struct MinHeap {
        private var items: [Int] = []

        mutating func insert(_ item: Int) {
            items.append(item)
            var child = items.count - 1
            while child > 0 && items[(child - 1) / 2] > items[child] {
                items.swapAt(child, (child - 1) / 2)
                child = (child - 1) / 2
            }
        }

        mutating func popMin() -> Int? {
            guard let first = items.first else { return nil }
            items[0] = items[items.count - 1]
            items.removeLast()
            guard !items.isEmpty else { return first }
            var parent = 0
            while true {
                let smallest = [parent, 2 * parent + 1, 2 * parent + 2].filter { $0 < items.count }.min { items[$0] < items[$1] }!
                if smallest == parent { return first }
                items.swapAt(parent, smallest)
                parent = smallest
            }
        }
    }

    /// `count` nodes, each depending on up to `most` random smaller nodes, numbered at random.
    private func randomEdges(_ count: Int, most: Int, seed: UInt64) -> [(Int, Int)] {
        var random = SplitMix(state: seed)
        let numbers = (0..<count).shuffled(using: &random)
        var edges: [(Int, Int)] = []
        for node in 1..<count {
            var dependencies = Set<Int>()
            for _ in 0..<Int.random(in: 0...most, using: &random) { dependencies.insert(Int.random(in: 0..<node, using: &random)) }
            edges += dependencies.map { (numbers[$0], numbers[node]) }
        }
        return edges
    }

    @Test("random graphs give the order by definition")
    func randomGraphs() {
        for seed in 1...20 {
            let count = 1 + seed * 37
            let edges = randomEdges(count, most: 4, seed: UInt64(seed))
            #expect(graph(count, edges).topologicalOrder() == expectedOrder(count, edges))
        }
    }

    @Test("a node that waits for more dependencies than a byte can count")
    func manyDependencies() {
        // Node 0 depends on nodes 1...300; node 301 on node 0.
        let edges = (1...300).map { ($0, 0) } + [(0, 301)]
        let order = graph(302, edges).topologicalOrder()
        #expect(order == expectedOrder(302, edges))
        #expect(order.suffix(2) == [0, 301])
    }

    @Test("more nodes than a three-level queue holds")
    func deepQueue() {
        let count = RankQueue<3>.capacity + 1_000
        let edges = randomEdges(count, most: 2, seed: 7)
        #expect(graph(count, edges).topologicalOrder() == expectedOrder(count, edges))
    }

    @Test("nodes on a cycle are left out; ignoring edges from one of them places the rest")
    func cycles() {
        // 1 -> 2 -> 3 -> 1, and 3 -> 4; 0 and 5 are free.
        let edges = [(1, 2), (2, 3), (3, 1), (3, 4)]
        let graph = graph(6, edges)
        #expect(graph.topologicalOrder() == [0, 5])
        #expect(graph.topologicalOrder(ignoringEdgesFrom: [3]) == expectedOrder(6, edges, ignoring: [3]))
        #expect(graph.topologicalOrder(ignoringEdgesFrom: [3]) == [0, 1, 2, 3, 4, 5])
    }

    @Test("RankQueue gives up its members smallest first, at every depth")
    func rankQueue() {
        var random = SplitMix(state: 3)
        func check<let levels: Int>(_ queue: consuming RankQueue<levels>, capacity: Int) {
            var reference = Set<Int>()
            for _ in 0..<20_000 {
                if Bool.random(using: &random) || reference.isEmpty {
                    let rank = Int.random(in: 0..<capacity, using: &random)
                    let included = Int.random(in: 0..<4, using: &random) != 0
                    queue.insert(rank, if: included)
                    if included { reference.insert(rank) }
                } else {
                    #expect(queue.min == reference.min())
                    #expect(queue.popMin() == reference.min())
                    reference.remove(reference.min()!)
                }
            }
            while let rank = queue.popMin() { #expect(rank == reference.min()); reference.remove(rank) }
            #expect(reference.isEmpty && queue.isEmpty)
        }
        check(RankQueue<3>(capacity: 100), capacity: 100)
        check(RankQueue<3>(capacity: RankQueue<3>.capacity), capacity: RankQueue<3>.capacity)
        check(RankQueue<6>(capacity: 5_000_000), capacity: 5_000_000)
    }
}
