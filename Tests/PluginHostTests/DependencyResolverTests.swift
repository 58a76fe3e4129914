import Testing

@testable import PluginHost

@Suite("DependencyResolver: the bootstrap order and every graph problem")
struct DependencyResolverTests {
    private let resolver = DependencyResolver(abiVersion: 1)

    private func plugin(
        _ name: String, requires: [String] = [], optional: [String] = [], abi: Int = 1, file: String? = nil, links: [String] = []
    ) -> PluginCandidate {
        PluginCandidate(
            file: file ?? "plugins/lib\(name).so",
            manifest: PluginManifest(name: name, version: SemanticVersion("1.0.0")!, abi: abi, requires: requires, optional: optional),
            needed: ["libswiftCore.so", "libPluginABI.so", "libc.so.6"] + links)
    }

    @Test("a plugin may link what it declares, directly or through what it declares; anything else is named")
    func linkedLibraries() {
        let resolution = resolver.resolve([
            plugin("Store"), plugin("Odd", file: "plugins/odd-name.so"),
            plugin("Domain", requires: ["Store"], links: ["libStore.so"]),
            plugin("App", requires: ["Domain"], links: ["libDomain.so", "libStore.so"]),
            plugin("Metrics", optional: ["Store"], links: ["libStore.so"]),
            plugin("Sneaky", links: ["libStore.so", "odd-name.so"]),
        ])
        #expect(resolution.problems.map(\.code) == [.undeclaredDependency, .undeclaredDependency])
        #expect(resolution.problems.map(\.plugin) == ["Sneaky", "Sneaky"])
        #expect(resolution.problems[0].message == "plugin Sneaky (plugins/libSneaky.so) links libStore.so, the library of plugin "
            + "Store (plugins/libStore.so), but its manifest does not declare Store; add \"Store\" to \"requires\" in the manifest of Sneaky")
        #expect(resolution.problems[1].message.contains("links odd-name.so, the library of plugin Odd (plugins/odd-name.so)"))
        #expect(resolution.failures.keys.sorted() == ["Sneaky"])
    }

    @Test("each plugin comes after the plugins it requires")
    func dependencyOrder() {
        let resolution = resolver.resolve([
            plugin("Application", requires: ["Domain"]), plugin("Domain", requires: ["Persistence"]), plugin("Persistence"),
        ])
        #expect(resolution.problems.isEmpty)
        #expect(resolution.order.map(\.name) == ["Persistence", "Domain", "Application"])
    }

    @Test("ties are broken by name, whatever order the files come in")
    func tiesByName() {
        let plugins = [
            plugin("Zeta"), plugin("alpha"), plugin("Mid", requires: ["Zeta"]), plugin("Beta"), plugin("Apex", requires: ["Beta"]),
        ]
        let expected = ["Beta", "Apex", "Zeta", "Mid", "alpha"]
        #expect(resolver.resolve(plugins).order.map(\.name) == expected)
        #expect(resolver.resolve(plugins.reversed()).order.map(\.name) == expected)
    }

    @Test("a cycle is reported with its full path and its members fail")
    func cycle() throws {
        let resolution = resolver.resolve([
            plugin("C", requires: ["A"]), plugin("A", requires: ["B"]), plugin("B", requires: ["C"]),
            plugin("D", requires: ["C"]), plugin("E"),
        ])
        #expect(resolution.order.map(\.name) == ["A", "B", "C", "D", "E"])
        #expect(Set(resolution.failures.keys) == ["A", "B", "C"])
        let problem = try #require(resolution.problems.first)
        #expect(resolution.problems.count == 1)
        #expect(problem.code == .dependencyCycle)
        #expect(problem.message.hasPrefix("dependency cycle: A -> B -> C -> A (each requires the next)"))
    }

    @Test("a cycle's path is the shortest way back to its first plugin")
    func shortestCyclePath() throws {
        let resolution = resolver.resolve([
            plugin("A", requires: ["B", "X"]), plugin("B", requires: ["C"]), plugin("C", requires: ["A"]), plugin("X", requires: ["A"]),
        ])
        #expect(resolution.problems.map(\.code) == [.dependencyCycle])
        #expect(resolution.problems[0].message.hasPrefix("dependency cycle: A -> X -> A"))
    }

    @Test("two separate cycles are both reported")
    func twoCycles() {
        let resolution = resolver.resolve([
            plugin("A", requires: ["B"]), plugin("B", requires: ["A"]), plugin("C", requires: ["D"]), plugin("D", requires: ["C"]),
        ])
        #expect(resolution.problems.map(\.message).map { String($0.prefix(30)) } == [
            "dependency cycle: A -> B -> A ", "dependency cycle: C -> D -> C ",
        ])
    }

    @Test("a missing dependency names the plugin that needs it and what it needs")
    func missingDependency() throws {
        let resolution = resolver.resolve([plugin("Domain", requires: ["Persistence"])])
        let problem = try #require(resolution.problems.first)
        #expect(problem.code == .missingDependency)
        #expect(problem.plugin == "Domain")
        #expect(problem.file == "plugins/libDomain.so")
        #expect(problem.message.hasPrefix("plugin Domain (plugins/libDomain.so) requires Persistence, which is not installed"))
    }

    @Test("each missing dependency is charged to the plugin that lists it, among plugins with and without requirements")
    func missingDependenciesAmongMany() {
        var plugins = (0..<40).map { plugin("P\($0)", requires: $0 % 3 == 0 ? [] : ["P\($0 - 1)"]) }
        plugins[0] = plugin("P0", requires: ["Ghost0"])
        plugins[7] = plugin("P7", requires: ["P6", "Ghost7"], optional: ["Absent"])
        plugins[8] = plugin("P8", optional: ["Absent"])
        plugins[9] = plugin("P9", requires: ["Ghost9a", "Ghost9b"])
        plugins[39] = plugin("P39", requires: ["P38"], optional: ["Absent", "P1"])
        plugins.append(plugin("Last", requires: ["GhostLast"]))
        let resolution = resolver.resolve(plugins)
        #expect(resolution.problems.map(\.code) == Array(repeating: .missingDependency, count: 5))
        #expect(resolution.problems.map { "\($0.plugin ?? "") \($0.message.split(separator: " ")[4])" } == [
            "P0 Ghost0,", "P7 Ghost7,", "P9 Ghost9a,", "P9 Ghost9b,", "Last GhostLast,",
        ])
        #expect(resolution.order.count == plugins.count)
    }

    @Test("a duplicate name names both files")
    func duplicateName() throws {
        let resolution = resolver.resolve([plugin("Twin", file: "plugins/libTwin.so"), plugin("Twin", file: "plugins/libTwin-2.so")])
        let problem = try #require(resolution.problems.first)
        #expect(problem.code == .duplicateName)
        #expect(problem.message.hasPrefix("duplicate plugin name Twin: plugins/libTwin-2.so and plugins/libTwin.so both declare it"))
    }

    @Test("an ABI mismatch says which version was found and which is expected")
    func abiMismatch() throws {
        let problem = try #require(resolver.resolve([plugin("Future", abi: 2)]).problems.first)
        #expect(problem.code == .abiMismatch)
        #expect(problem.message.contains("was built for plugin ABI 2, but this host provides ABI 1"))
    }

    @Test("an installed optional dependency is ordered first; an absent one is no problem")
    func optionalDependencies() {
        let present = resolver.resolve([plugin("App", optional: ["Metrics"]), plugin("Metrics", requires: ["Zlib"]), plugin("Zlib")])
        #expect(present.problems.isEmpty)
        #expect(present.order.map(\.name) == ["Zlib", "Metrics", "App"])
        let absent = resolver.resolve([plugin("App", optional: ["Metrics"])])
        #expect(absent.problems.isEmpty)
        #expect(absent.order.map(\.name) == ["App"])
    }

    @Test("a cycle through an optional dependency is still a cycle")
    func optionalCycle() {
        let resolution = resolver.resolve([plugin("A", optional: ["B"]), plugin("B", requires: ["A"])])
        #expect(resolution.problems.map(\.code) == [.dependencyCycle])
    }

    @Test("plugins with graph problems are recorded as failures; the rest stays ordered for --keep-going")
    func failuresForKeepGoing() {
        let resolution = resolver.resolve([
            plugin("Lonely", requires: ["Ghost"]), plugin("Old", abi: 0), plugin("Fine"), plugin("User", requires: ["Lonely"]),
            plugin("Twin"), plugin("Twin", file: "plugins/libTwin-2.so"), plugin("P", requires: ["Q"]), plugin("Q", requires: ["P"]),
            plugin("AfterCycle", optional: ["P"]),
        ])
        #expect(Set(resolution.failures.keys) == ["Lonely", "Old", "Twin", "P", "Q"])
        #expect(resolution.failures["Lonely"]?.code == .missingDependency)
        let order = resolution.order.map(\.name)
        #expect(Set(order) == ["AfterCycle", "Fine", "Lonely", "Old", "P", "Q", "Twin", "User"])
        #expect(order.firstIndex(of: "Lonely")! < order.firstIndex(of: "User")!)
    }

    @Test("every problem is reported at once")
    func allProblemsAtOnce() {
        let resolution = resolver.resolve([
            plugin("A", requires: ["B"]), plugin("B", requires: ["A"]), plugin("C", requires: ["Ghost"]),
            plugin("D", abi: 9), plugin("E"), plugin("E", file: "other/libE.so"),
        ])
        #expect(Set(resolution.problems.map(\.code)) == [.dependencyCycle, .missingDependency, .abiMismatch, .duplicateName])
    }

    @Test("a long chain resolves without exhausting the stack")
    func longChain() {
        let count = 20_000
        let plugins = (0..<count).map { index in
            plugin(String(format: index), requires: index == 0 ? [] : [String(format: index - 1)])
        }
        let resolution = resolver.resolve(plugins.reversed())
        #expect(resolution.order.count == count)
        #expect(resolution.order.first?.name == String(format: 0))
    }

    @Test("a long cycle is found without exhausting the stack")
    func longCycle() {
        let count = 20_000
        let plugins = (0..<count).map { index in plugin(String(format: index), requires: [String(format: (index + 1) % count)]) }
        let resolution = resolver.resolve(plugins)
        #expect(resolution.problems.map(\.code) == [.dependencyCycle])
    }
}

private func String(format index: Int) -> String {
    let digits = String(index)
    return "P" + String(repeating: "0", count: 6 - digits.count) + digits
}
