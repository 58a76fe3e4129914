/// Tarjan's algorithm, without recursion so that long dependency chains cannot exhaust
/// the stack.
enum StronglyConnectedComponents {
    /// The strongly connected components of the graph over `nodes`.
    ///
    /// - Parameters:
    ///   - nodes: The nodes to consider.
    ///   - edges: The successors of a node; successors outside `nodes` must not be returned.
    /// - Returns: Each component as a list of nodes.
    static func find(in nodes: [Int], edges: (Int) -> [Int]) -> [[Int]] {
        var index: [Int: Int] = [:]
        var lowLink: [Int: Int] = [:]
        var onStack = Set<Int>()
        var stack: [Int] = []
        var components: [[Int]] = []
        var counter = 0

        for root in nodes where index[root] == nil {
            // Each frame: a node and the successors still to visit.
            var frames: [(node: Int, successors: [Int], next: Int)] = []
            func enter(_ node: Int) {
                index[node] = counter
                lowLink[node] = counter
                counter += 1
                stack.append(node)
                onStack.insert(node)
                frames.append((node, edges(node), 0))
            }
            enter(root)
            while !frames.isEmpty {
                let top = frames.count - 1
                let node = frames[top].node
                if frames[top].next < frames[top].successors.count {
                    let successor = frames[top].successors[frames[top].next]
                    frames[top].next += 1
                    if index[successor] == nil {
                        enter(successor)
                    } else if onStack.contains(successor) {
                        lowLink[node] = min(lowLink[node]!, index[successor]!)
                    }
                    continue
                }
                frames.removeLast()
                if let parent = frames.last?.node {
                    lowLink[parent] = min(lowLink[parent]!, lowLink[node]!)
                }
                if lowLink[node] == index[node] {
                    var component: [Int] = []
                    while let member = stack.popLast() {
                        onStack.remove(member)
                        component.append(member)
                        if member == node { break }
                    }
                    components.append(component)
                }
            }
        }
        return components
    }
}
