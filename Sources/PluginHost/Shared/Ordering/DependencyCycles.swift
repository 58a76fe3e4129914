/// The dependency cycles the resolver reports: one per strongly connected component of
/// more than one plugin, as a path an operator can follow.
enum DependencyCycles {
    /// One cycle per strongly connected component of `members` that has one, each as the
    /// shortest path from its smallest-named plugin back to itself, with all the members of
    /// its component.
    ///
    /// - Parameter requirements: The members a member depends on, sorted.
    static func find(
        among members: Set<Int>, requirements: (Int) -> [Int], name: (Int) -> String
    ) -> [(path: [Int], members: [Int])] {
        var cycles: [(path: [Int], members: [Int])] = []
        for component in StronglyConnectedComponents.find(in: members.sorted(), edges: requirements) where component.count > 1 {
            let inComponent = Set(component)
            let start = component.min()!
            // Breadth-first from `start` along requirements until a plugin requires `start`.
            var previous: [Int: Int] = [start: start]
            var queue = [start]
            var head = 0
            var last: Int?
            search: while head < queue.count {
                let current = queue[head]
                head += 1
                for next in requirements(current) where inComponent.contains(next) {
                    if next == start { last = current; break search }
                    if previous[next] == nil {
                        previous[next] = current
                        queue.append(next)
                    }
                }
            }
            guard var node = last else { continue }
            var path = [node]
            while node != start {
                node = previous[node]!
                path.append(node)
            }
            cycles.append((path.reversed(), component.sorted()))
        }
        return cycles.sorted { name($0.path[0]) < name($1.path[0]) }
    }
}
