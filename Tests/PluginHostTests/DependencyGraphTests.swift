@testable import PluginHost
import Testing

@Suite("DependencyGraph and ReadyNodes: Kahn's algorithm, the smallest ready node first")
struct DependencyGraphTests {
    @Test("each node comes after what it depends on; among ready nodes the smallest comes first")
    func topologicalOrder() {
        // 3 depends on 4; 0 on 3 and 1; 2 on nothing.
        let graph = DependencyGraph(dependencies: [[3, 1], [], [], [4], []])
        #expect(graph.topologicalOrder() == [1, 2, 4, 3, 0])
        #expect((0..<5).map { Array(graph.dependents(of: $0)) } == [[], [0], [], [0], [3]])
        #expect(Array(graph.dependencies(of: 0)) == [3, 1], "in manifest order")
    }

    @Test("nodes on a cycle, and behind one, are left out; ignoring the edges out of them places everything")
    func cycles() {
        // 0 and 1 depend on each other; 2 depends on 1; 3 on nothing.
        let graph = DependencyGraph(dependencies: [[1], [0], [1], []])
        #expect(graph.topologicalOrder() == [3])
        #expect(graph.topologicalOrder(ignoringEdgesFrom: [0, 1]) == [0, 1, 2, 3])
    }

    @Test("a node is ready once its last dependency finishes, whatever order they finish in")
    func readyAsDependenciesFinish() {
        let graph = DependencyGraph(dependencies: [[], [], [0, 1], [2]])
        var ready = ReadyNodes(graph)
        #expect(ready.count == 2)
        #expect(ready.next() == 0)
        #expect(ready.next() == 1)
        #expect(ready.next() == nil)
        #expect(ready.finish(1) == 0)
        #expect(ready.finish(0) == 1)
        #expect(ready.next() == 2)
        #expect(ready.finish(2) == 1)
        #expect(ready.next() == 3)
    }

    @Test("renumbering keeps every edge")
    func renumbered() {
        let graph = DependencyGraph(dependencies: [[1], [], [0, 1]])
        let renumbered = graph.renumbered([2, 0, 1])
        #expect((0..<3).map { Array(renumbered.dependencies(of: $0)) } == [[], [2, 0], [0]])
        #expect(renumbered.topologicalOrder() == [0, 2, 1])
    }

    @Test("a long chain is ordered without recursion", arguments: [100_000])
    func longChain(count: Int) {
        let graph = DependencyGraph(dependencies: (0..<count).map { $0 == 0 ? [] : [$0 - 1] })
        #expect(graph.topologicalOrder() == Array(0..<count))
    }
}
