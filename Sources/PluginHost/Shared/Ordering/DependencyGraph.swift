/// Which plugins depend on which. Nodes are numbers from 0: the plugins of a resolution in
/// name order while it resolves, then its plugins in bootstrap order.
///
/// The edges of all nodes are kept in two flat arrays, one sorted by the depending node and
/// one by the node depended on, each with where every node's run starts: a graph of a
/// thousand plugins is a handful of allocations, not thousands of small arrays.
struct DependencyGraph: Equatable, Sendable {
    /// A plugin and one plugin it depends on.
    struct Edge: Equatable, Sendable {
        let node: Int
        let dependency: Int
    }

    /// The edges in the order given, stably sorted by node.
    private let byNode: [Int]
    private let nodeStarts: [Int]
    /// The depending nodes, sorted by the node they depend on.
    private let byDependency: [Int]
    private let dependencyStarts: [Int]

    /// A graph of `count` nodes with `edges`; a node's dependencies keep the order of its
    /// edges (the order of its manifest).
    init(count: Int, edges: [Edge]) {
        (nodeStarts, byNode) = Self.grouped(count: count, edges.map { ($0.node, $0.dependency) })
        (dependencyStarts, byDependency) = Self.grouped(count: count, edges.map { ($0.dependency, $0.node) })
    }

    /// A graph whose node `n` depends on the nodes `dependencies[n]`.
    init(dependencies: [[Int]]) {
        self.init(count: dependencies.count, edges: dependencies.enumerated().flatMap { node, required in
            required.map { Edge(node: node, dependency: $0) }
        })
    }

    var count: Int { nodeStarts.count - 1 }

    /// The nodes `node` depends on: the plugins it requires, and the optional ones that are
    /// installed, in manifest order.
    func dependencies(of node: Int) -> ArraySlice<Int> { byNode[nodeStarts[node]..<nodeStarts[node + 1]] }

    /// The nodes that depend on `node`.
    func dependents(of node: Int) -> ArraySlice<Int> { byDependency[dependencyStarts[node]..<dependencyStarts[node + 1]] }

    /// Every node after the nodes it depends on, the smallest ready node first (Kahn's
    /// algorithm); nodes on a cycle, or behind one, are left out.
    ///
    /// - Parameter ignored: Nodes that nothing waits for: their dependents are ready
    ///   without them.
    func topologicalOrder(ignoringEdgesFrom ignored: Set<Int> = []) -> [Int] {
        var ready = ReadyNodes(self, ignoringEdgesFrom: ignored)
        var order: [Int] = []
        order.reserveCapacity(count)
        while let node = ready.next() {
            order.append(node)
            ready.finish(node)
        }
        return order
    }

    /// The same graph with each node `node` numbered `numbers[node]`.
    func renumbered(_ numbers: [Int]) -> DependencyGraph {
        var edges: [Edge] = []
        edges.reserveCapacity(byNode.count)
        for node in 0..<count {
            for dependency in dependencies(of: node) { edges.append(Edge(node: numbers[node], dependency: numbers[dependency])) }
        }
        return DependencyGraph(count: count, edges: edges)
    }

    /// `pairs` grouped by their first element (a counting sort, stable): where each key's
    /// run starts, and the second elements.
    private static func grouped(count: Int, _ pairs: [(key: Int, value: Int)]) -> (starts: [Int], values: [Int]) {
        var starts = [Int](repeating: 0, count: count + 1)
        for (key, _) in pairs { starts[key + 1] += 1 }
        for node in 0..<count { starts[node + 1] += starts[node] }
        var next = starts
        var values = [Int](repeating: 0, count: pairs.count)
        for (key, value) in pairs {
            values[next[key]] = value
            next[key] += 1
        }
        return (starts, values)
    }
}
