/// The dependency graph in compressed form: for each node, where its dependents start in
/// one flat array (compressed sparse rows) and how many dependencies it waits for, side by
/// side, so that visiting a node reads one place. Nodes are `Int32`s so that a hundred
/// thousand plugins' graph stays small enough for the caches.
struct DependentsGraph {
    private struct Node {
        /// The position in `dependents` of the node's first dependent; the next node's
        /// is the end of its dependents.
        var firstDependent: Int32
        /// How many dependencies the node has, or, while ordering, still waits for.
        var dependencies: Int32
    }

    /// One more than there are nodes: the last one marks the end of the dependents.
    private let nodes: [Node]
    private let dependents: [Int32]

    /// Builds a graph from its edges, given in ascending order of the node depended on, and
    /// the number of edges into each node, which the caller knows in order (counting them
    /// edge by edge would touch the nodes in no order at all).
    struct Builder {
        private let count: Int
        private var nodes: [Node]
        private var dependents: [Int32] = []
        /// The nodes whose first dependent has been recorded: `0..<recorded`.
        private var recorded = 0

        /// - Parameters:
        ///   - dependencyCounts: For each node, `0..<dependencyCounts.count`: how many
        ///     edges will be added into it.
        ///   - edges: About how many edges will be added.
        init(dependencyCounts: [Int32], edges: Int) {
            count = dependencyCounts.count
            nodes = dependencyCounts.map { Node(firstDependent: 0, dependencies: $0) }
            nodes.append(Node(firstDependent: 0, dependencies: 0))
            dependents.reserveCapacity(edges)
        }

        /// Adds the edge from `dependency` to `dependent`; `dependency` must not be less
        /// than that of the edge added before.
        mutating func addEdge(from dependency: Int, to dependent: Int) {
            precondition(dependency >= recorded - 1, "edges must be added in order of their dependency")
            start(through: dependency)
            dependents.append(Int32(dependent))
        }

        consuming func build() -> DependentsGraph {
            start(through: count)
            precondition(dependents.count == Int(nodes.lazy.map(\.dependencies).reduce(0, +)), "edges and dependency counts disagree")
            return DependentsGraph(nodes: nodes, dependents: dependents)
        }

        private mutating func start(through node: Int) {
            while recorded <= node {
                nodes[recorded].firstDependent = Int32(dependents.count)
                recorded += 1
            }
        }
    }

    private init(nodes: [Node], dependents: [Int32]) {
        self.nodes = nodes
        self.dependents = dependents
    }

    /// The nodes that depend on `node`.
    func dependents(of node: Int) -> ArraySlice<Int32> {
        dependents[Int(nodes[node].firstDependent)..<Int(nodes[node + 1].firstDependent)]
    }

    /// Kahn's algorithm: the nodes in dependency order, the smallest first among those
    /// ready together. Nodes still waiting at the end (on a cycle) are left out.
    ///
    /// - Parameter ignored: Nodes whose edges to their dependents do not count.
    func topologicalOrder(ignoringEdgesFrom ignored: Set<Int> = []) -> [Int32] {
        let count = nodes.count - 1
        var waiting = nodes
        for node in ignored {
            for dependent in dependents(of: node) { waiting[Int(dependent)].dependencies -= 1 }
        }
        var ready = RankQueue(capacity: count)
        for node in 0..<count where waiting[node].dependencies == 0 { ready.insert(node) }
        var order: [Int32] = []
        order.reserveCapacity(count)
        waiting.withUnsafeMutableBufferPointer { waiting in
            dependents.withUnsafeBufferPointer { dependents in
                while let node = ready.popMin() {
                    order.append(Int32(node))
                    guard ignored.isEmpty || !ignored.contains(node) else { continue }
                    for edge in Int(waiting[node].firstDependent)..<Int(waiting[node + 1].firstDependent) {
                        let dependent = Int(dependents[edge])
                        waiting[dependent].dependencies -= 1
                        if waiting[dependent].dependencies == 0 { ready.insert(dependent) }
                    }
                }
            }
        }
        return order
    }
}
