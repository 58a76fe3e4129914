/// Kahn's algorithm one step at a time: the nodes of a ``DependencyGraph`` whose
/// dependencies are all finished, smallest first.
///
/// The resolver takes and finishes one node after another to order a graph; the chain
/// runner takes a node when a thread is free and finishes it when its bootstrap ends.
struct ReadyNodes: Sendable {
    private let graph: DependencyGraph
    private let ignored: Set<Int>
    /// For each node, how many of its dependencies are not finished yet.
    private var waiting: [Int]
    private var ready = MinHeap()

    /// The nodes of `graph` with no dependencies are ready.
    ///
    /// - Parameter ignored: Nodes that nothing waits for: their dependents are ready
    ///   without them.
    init(_ graph: DependencyGraph, ignoringEdgesFrom ignored: Set<Int> = []) {
        self.graph = graph
        self.ignored = ignored
        waiting = (0..<graph.count).map { node in
            let dependencies = graph.dependencies(of: node)
            return ignored.isEmpty ? dependencies.count : dependencies.count { !ignored.contains($0) }
        }
        for (node, count) in waiting.enumerated() where count == 0 { ready.insert(node) }
    }

    /// How many nodes are ready and not taken.
    var count: Int { ready.count }

    /// Takes the smallest ready node.
    mutating func next() -> Int? { ready.popMin() }

    /// Marks `node` finished: its dependents wait for one node less.
    ///
    /// - Returns: How many nodes became ready.
    @discardableResult
    mutating func finish(_ node: Int) -> Int {
        guard !ignored.contains(node) else { return 0 }
        var readied = 0
        for dependent in graph.dependents(of: node) {
            waiting[dependent] -= 1
            if waiting[dependent] == 0 {
                ready.insert(dependent)
                readied += 1
            }
        }
        return readied
    }
}
