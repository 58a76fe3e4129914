/// The dependency graph in compressed form (compressed sparse rows): for each node, where
/// its dependents start in one flat array, and how many dependencies it has. Nodes are
/// `Int32`s so that a hundred thousand plugins' graph stays small enough for the caches.
struct DependentsGraph {
    /// For each node, and one more: the position in `dependents` of the node's first
    /// dependent; the next node's is the end of its dependents.
    private let firstDependents: [Int32]
    /// Every node's dependents, node after node, then one more entry (0), so that the first
    /// dependent of any node can be read, even of a last node that has none.
    private let dependents: [Int32]
    /// For each node: how many dependencies it has.
    private let dependencyCounts: [Int32]

    /// Builds a graph from its edges, given in ascending order of the node depended on, and
    /// the number of edges into each node, which the caller knows in order (counting them
    /// edge by edge would touch the nodes in no order at all).
    struct Builder {
        private let dependencyCounts: [Int32]
        /// The first dependent of the nodes seen so far.
        private var firstDependents: [Int32] = []
        private var dependents: [Int32] = []

        /// - Parameters:
        ///   - dependencyCounts: For each node, `0..<dependencyCounts.count`: how many
        ///     edges will be added into it.
        ///   - edges: About how many edges will be added.
        init(dependencyCounts: [Int32], edges: Int) {
            self.dependencyCounts = dependencyCounts
            firstDependents.reserveCapacity(dependencyCounts.count + 1)
            dependents.reserveCapacity(edges + 1)
        }

        /// Adds the edge from `dependency` to `dependent`; `dependency` must not be less
        /// than that of the edge added before.
        mutating func addEdge(from dependency: Int, to dependent: Int) {
            precondition(dependency >= firstDependents.count - 1, "edges must be added in order of their dependency")
            start(through: dependency)
            dependents.append(Int32(dependent))
        }

        consuming func build() -> DependentsGraph {
            start(through: dependencyCounts.count)
            precondition(dependents.count == Int(dependencyCounts.lazy.map(Int.init).reduce(0, +)), "edges and dependency counts disagree")
            dependents.append(0)
            return DependentsGraph(firstDependents: firstDependents, dependents: dependents, dependencyCounts: dependencyCounts)
        }

        private mutating func start(through node: Int) {
            while firstDependents.count <= node { firstDependents.append(Int32(dependents.count)) }
        }
    }

    private init(firstDependents: [Int32], dependents: [Int32], dependencyCounts: [Int32]) {
        self.firstDependents = firstDependents
        self.dependents = dependents
        self.dependencyCounts = dependencyCounts
    }

    /// The nodes that depend on `node`.
    func dependents(of node: Int) -> ArraySlice<Int32> {
        dependents[Int(firstDependents[node])..<Int(firstDependents[node + 1])]
    }

    /// Kahn's algorithm: the nodes in dependency order, the smallest first among those
    /// ready together. Nodes still waiting at the end (on a cycle) are left out.
    ///
    /// - Parameter ignored: Nodes whose edges to their dependents do not count.
    func topologicalOrder(ignoringEdgesFrom ignored: Set<Int> = []) -> [Int32] {
        // The counts still waited for are bytes when they fit one, so that 100,000 of them
        // stay in the L2 cache; the ready queue is as deep as the nodes need.
        let count = dependencyCounts.count
        if count <= RankQueue<3>.capacity {
            if dependencyCounts.allSatisfy({ $0 <= Int32(UInt8.max) }) {
                return order(counting: UInt8.self, ready: RankQueue<3>(capacity: count), ignoringEdgesFrom: ignored)
            }
            return order(counting: UInt32.self, ready: RankQueue<3>(capacity: count), ignoringEdgesFrom: ignored)
        }
        return order(counting: UInt32.self, ready: RankQueue<6>(capacity: count), ignoringEdgesFrom: ignored)
    }

    private func order<Count: FixedWidthInteger & UnsignedInteger, let levels: Int>(
        counting _: Count.Type, ready: consuming RankQueue<levels>, ignoringEdgesFrom ignored: Set<Int>
    ) -> [Int32] {
        let count = dependencyCounts.count
        var waiting = dependencyCounts.map { Count(truncatingIfNeeded: $0) }
        for node in ignored {
            for dependent in dependents(of: node) { waiting[Int(dependent)] -= 1 }
        }
        for node in 0..<count where waiting[node] == 0 { ready.insert(node) }
        return [Int32](unsafeUninitializedCapacity: count) { order, placed in
            placed = 0
            waiting.withUnsafeMutableBufferPointer { waiting in
                firstDependents.withUnsafeBufferPointer { firstDependents in
                    dependents.withUnsafeBufferPointer { dependents in
                        while let node = ready.popMin() {
                            order[placed] = Int32(truncatingIfNeeded: node)
                            placed += 1
                            // The node that comes next unless one of this node's dependents
                            // becomes ready and is smaller: reading its first dependent now,
                            // while this node's dependents are counted down, has that memory on
                            // its way early: at 100,000 plugins the graph is larger than the L2
                            // cache, and the whole resolution took 8% less time. Checking the
                            // value read keeps the compiler from dropping the read.
                            if let next = ready.min {
                                precondition(dependents[Int(firstDependents[next])] < count, "a dependent that is not a node")
                            }
                            guard ignored.isEmpty || !ignored.contains(node) else { continue }
                            for edge in Int(firstDependents[node])..<Int(firstDependents[node + 1]) {
                                let dependent = Int(dependents[edge])
                                let left = waiting[dependent] &- 1
                                waiting[dependent] = left
                                ready.insert(dependent, if: left == 0)
                            }
                        }
                    }
                }
            }
        }
    }
}
