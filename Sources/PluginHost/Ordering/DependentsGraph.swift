/// The dependency graph in compressed form: for each node, its dependents in one flat
/// array (compressed sparse rows), and how many dependencies it waits for.
struct DependentsGraph {
    private let offsets: [Int]
    private let dependents: [Int]
    private let dependencyCounts: [Int]

    /// - Parameters:
    ///   - count: The number of nodes, `0..<count`.
    ///   - edges: Each edge from a dependency to its dependent.
    init(count: Int, edges: [(dependency: Int, dependent: Int)]) {
        var offsets = [Int](repeating: 0, count: count + 1)
        var dependencyCounts = [Int](repeating: 0, count: count)
        for edge in edges {
            offsets[edge.dependency + 1] += 1
            dependencyCounts[edge.dependent] += 1
        }
        for index in 0..<count { offsets[index + 1] += offsets[index] }
        var next = offsets
        var dependents = [Int](repeating: 0, count: edges.count)
        for edge in edges {
            dependents[next[edge.dependency]] = edge.dependent
            next[edge.dependency] += 1
        }
        self.offsets = offsets
        self.dependents = dependents
        self.dependencyCounts = dependencyCounts
    }

    /// Kahn's algorithm: the nodes in dependency order, the smallest index first among
    /// those ready together. Nodes still waiting at the end (on a cycle) are left out.
    ///
    /// - Parameter ignored: Nodes whose edges to their dependents do not count.
    func topologicalOrder(ignoringEdgesFrom ignored: Set<Int> = []) -> [Int] {
        var waiting = dependencyCounts
        for node in ignored {
            for dependent in dependents[offsets[node]..<offsets[node + 1]] { waiting[dependent] -= 1 }
        }
        var ready = RankQueue(capacity: waiting.count)
        for node in waiting.indices where waiting[node] == 0 { ready.insert(node) }
        var order: [Int] = []
        order.reserveCapacity(waiting.count)
        while let node = ready.popMin() {
            order.append(node)
            guard !ignored.contains(node) else { continue }
            for dependent in dependents[offsets[node]..<offsets[node + 1]] {
                waiting[dependent] -= 1
                if waiting[dependent] == 0 { ready.insert(dependent) }
            }
        }
        return order
    }
}
