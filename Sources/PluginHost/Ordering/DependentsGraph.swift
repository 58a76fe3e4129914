/// The dependency graph in compressed form: for each node, its dependents in one flat
/// array (compressed sparse rows), and how many dependencies it waits for. Nodes are
/// `Int32`s so that a hundred thousand plugins' graph stays small enough for the caches.
struct DependentsGraph {
    private let offsets: [Int32]
    private let dependents: [Int32]
    private let dependencyCounts: [Int32]

    /// Builds a graph from its edges, given in ascending order of the node depended on.
    struct Builder {
        private let count: Int
        private var offsets: [Int32]
        private var dependents: [Int32] = []
        private var dependencyCounts: [Int32]
        /// The nodes whose dependents start has been recorded: `0..<recorded`.
        private var recorded = 0

        /// - Parameters:
        ///   - count: The number of nodes, `0..<count`.
        ///   - edges: About how many edges will be added.
        init(count: Int, edges: Int) {
            self.count = count
            offsets = [Int32](repeating: 0, count: count + 1)
            dependents.reserveCapacity(edges)
            dependencyCounts = [Int32](repeating: 0, count: count)
        }

        /// Adds the edge from `dependency` to `dependent`; `dependency` must not be less
        /// than that of the edge added before.
        mutating func addEdge(from dependency: Int, to dependent: Int) {
            precondition(dependency >= recorded - 1, "edges must be added in order of their dependency")
            start(through: dependency)
            dependents.append(Int32(dependent))
            dependencyCounts[dependent] += 1
        }

        consuming func build() -> DependentsGraph {
            start(through: count)
            return DependentsGraph(offsets: offsets, dependents: dependents, dependencyCounts: dependencyCounts)
        }

        private mutating func start(through node: Int) {
            while recorded <= node {
                offsets[recorded] = Int32(dependents.count)
                recorded += 1
            }
        }
    }

    private init(offsets: [Int32], dependents: [Int32], dependencyCounts: [Int32]) {
        self.offsets = offsets
        self.dependents = dependents
        self.dependencyCounts = dependencyCounts
    }

    /// The nodes that depend on `node`.
    func dependents(of node: Int) -> ArraySlice<Int32> { dependents[Int(offsets[node])..<Int(offsets[node + 1])] }

    /// Kahn's algorithm: the nodes in dependency order, the smallest first among those
    /// ready together. Nodes still waiting at the end (on a cycle) are left out.
    ///
    /// - Parameter ignored: Nodes whose edges to their dependents do not count.
    func topologicalOrder(ignoringEdgesFrom ignored: Set<Int> = []) -> [Int32] {
        var waiting = dependencyCounts
        for node in ignored {
            for dependent in dependents(of: node) { waiting[Int(dependent)] -= 1 }
        }
        var ready = RankQueue(capacity: waiting.count)
        for node in waiting.indices where waiting[node] == 0 { ready.insert(node) }
        var order: [Int32] = []
        order.reserveCapacity(waiting.count)
        while let node = ready.popMin() {
            order.append(Int32(node))
            guard ignored.isEmpty || !ignored.contains(node) else { continue }
            for dependent in dependents(of: node) {
                let dependent = Int(dependent)
                waiting[dependent] -= 1
                if waiting[dependent] == 0 { ready.insert(dependent) }
            }
        }
        return order
    }
}
