#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// Seeded simulation of supervision: random sequences of faults against the real
/// ``SupervisionMachine``, with the invariants of ``SimulatedWorld`` checked after every
/// step, as TigerBeetle's VOPR and FoundationDB's simulator test theirs. A seed gives one
/// sequence and one set-up, exactly; a failure is shrunk to the shortest sequence that still
/// fails, and printed with its seed.
enum Simulation {
    /// What one run found.
    struct Outcome {
        let seed: UInt64
        let operations: [FaultOperation]
        let violations: [String]
        let events: Int
        let trace: [String]
        /// How the host ended: the reason and status, as `stopped 0`.
        let ending: String
        /// The changes of state the run went through.
        let transitions: Set<Transition>
    }

    /// The set-up of the run of `seed`: restart limits, delays and deadlines vary.
    static func setup(seed: UInt64) -> SimulatedWorld.Setup {
        var random = SplitMix64(seed: seed ^ 0x5EED_5E7)
        var setup = SimulatedWorld.Setup()
        setup.machine.restart.limit = Int.random(in: 1...8, using: &random)
        setup.machine.restart.window = .seconds(Int.random(in: 5...60, using: &random))
        setup.machine.restart.delay = .milliseconds([0, 50, 100, 250].randomElement(using: &random)!)
        setup.machine.restart.maximumDelay = .seconds(Int.random(in: 1...10, using: &random))
        setup.machine.restart.enabled = Int.random(in: 0..<10, using: &random) != 0
        setup.machine.stopLimit = [.seconds(1), .seconds(3), .seconds(10)].randomElement(using: &random)!
        setup.machine.suspensionLimit = [nil, .seconds(2), .seconds(30)].randomElement(using: &random)!
        setup.machine.watching = Bool.random(using: &random)
        setup.machine.watchdog = Bool.random(using: &random) ? .seconds(4) : nil
        setup.loadTimeout = .seconds([2, 30].randomElement(using: &random)!)
        setup.machine.trial = [nil, .seconds(2), .seconds(30)].randomElement(using: &random)!
        // The manifests say "upgrade": "after" for every plugin, "beside" for every one, or
        // each its own.
        let orders = Int.random(in: 0..<3, using: &random)
        setup.beside = Set(SimulatedWorld.plugins.indices.filter { _ in orders == 1 || (orders == 2 && Bool.random(using: &random)) })
        // A quarter of the hosts cannot write their state directory: no record, no files.copies.
        setup.keepsRecord = Int.random(in: 0..<4, using: &random) != 0
        // A quarter of the first generations tell they are ready a few milliseconds after their
        // services began to run.
        setup.readyLatency = Int.random(in: 0..<4, using: &random) == 0 ? .milliseconds(Int.random(in: 1...5, using: &random)) : .zero
        return setup
    }

    /// The random sequence of `seed`. Most begin once the first generation serves, so that
    /// the faults reach every state rather than the start.
    static func operations(seed: UInt64, count: Int = 50) -> [FaultOperation] {
        var random = SplitMix64(seed: seed)
        let opening: [FaultOperation] = Int.random(in: 0..<5, using: &random) == 0 ? [] : [.advance(milliseconds: 100)]
        // Faults come in sequences on one plugin (a file rewritten while its build is held,
        // then replaced by one that fails): half the time an operation is about the plugin
        // the one before was about.
        var plugin = Int.random(in: 0..<SimulatedWorld.plugins.count, using: &random)
        return opening + (0..<count).map { _ in
            if Bool.random(using: &random) { plugin = Int.random(in: 0..<SimulatedWorld.plugins.count, using: &random) }
            return randomOperation(about: plugin, using: &random)
        }
    }

    private static func randomOperation(about plugin: Int, using random: inout SplitMix64) -> FaultOperation {
        let target = FaultOperation.Target.allCases.randomElement(using: &random)!
        // Most new builds are good; the rest fail in every way a build can.
        let build: FaultOperation.Build = Int.random(in: 0..<3, using: &random) == 0
            ? FaultOperation.Build.allCases.randomElement(using: &random)! : .good
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<22: return .advance(milliseconds: [1, 5, 20, 100, 250, 1_000, 5_000].randomElement(using: &random)!)
        case 22..<32: return .advanceToNextDeadline
        case 32..<37: return .kill(target, FaultOperation.Death.allCases.randomElement(using: &random)!)
        case 37..<40: return .crash(target, inPlugin: plugin)
        case 40..<48: return .replace(plugin: plugin, with: build)
        case 48..<53: return .rewriteInPlace(plugin: plugin, with: build)
        case 53..<56: return .remove(plugin: plugin)
        case 56..<61: return .signal(.hangUp, to: FaultOperation.Recipient.allCases.randomElement(using: &random)!)
        case 61..<64: return .signal([.terminate, .interrupt].randomElement(using: &random)!, to: FaultOperation.Recipient.allCases.randomElement(using: &random)!)
        case 64..<68: return .hang(target)
        case 68..<71: return .suspend(target)
        case 71..<74: return .resume(target)
        case 74..<77: return .health(target, good: Bool.random(using: &random))
        case 77..<79: return .unhealthy(plugin: plugin)
        case 79..<86: return .daemonize(target)
        case 86..<88: return .environmentBreaks(plugin: plugin, build: build)
        case 88: return .refuseNextFork
        case 89..<93: return .ask(FaultOperation.Request.allCases.randomElement(using: &random)!)
        case 93: return .clientLeaves
        case 94:
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return .tearRecord
            case 1: return .freezeState(seconds: [2, 10].randomElement(using: &random)!)
            default: return .killSupervisor
            }
        default: return .advance(milliseconds: Int.random(in: 1...40_000, using: &random))
        }
    }

    /// Runs `operations` on the set-up of `seed`, then stops the host and checks it ends in
    /// time (or, with `settling`, first lets it run without faults and checks it serves).
    static func run(seed: UInt64, operations: [FaultOperation], tracing: Bool = false) -> Outcome {
        run(setup: setup(seed: seed), seed: seed, operations: operations, tracing: tracing)
    }

    /// Runs `operations` on `setup`, with the timing `seed` gives.
    static func run(setup: SimulatedWorld.Setup, seed: UInt64, operations: [FaultOperation], tracing: Bool = false) -> Outcome {
        var world = SimulatedWorld(setup: setup, seed: seed, tracing: tracing)
        for operation in operations {
            world.apply(operation)
            if !world.violations.isEmpty { break }
        }
        if world.violations.isEmpty { world.settleWithoutFaults() }
        if world.violations.isEmpty { world.stopAndSettle() }
        if world.violations.isEmpty { world.checkNextStart() }
        let ending = world.exit.map { "\($0.reason) \($0.status.rawValue)" } ?? "none"
        return Outcome(
            seed: seed, operations: operations, violations: world.violations, events: world.eventCount, trace: world.trace, ending: ending,
            transitions: world.transitions)
    }

    /// Runs the random sequence of `seed`; a failure comes back shrunk.
    static func run(seed: UInt64) -> Outcome {
        let outcome = run(seed: seed, operations: operations(seed: seed))
        guard !outcome.violations.isEmpty else { return outcome }
        return shrink(outcome)
    }

    /// The shortest sub-sequence of a failing run found that still fails (delta debugging:
    /// drop chunks, halving their size, while the failure stays).
    static func shrink(_ failing: Outcome) -> Outcome {
        var operations = failing.operations
        var chunk = max(1, operations.count / 2)
        while chunk >= 1 {
            var start = 0
            var removedAny = false
            while start < operations.count {
                var candidate = operations
                candidate.removeSubrange(start..<min(operations.count, start + chunk))
                if !run(seed: failing.seed, operations: candidate).violations.isEmpty {
                    operations = candidate
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if !removedAny { chunk /= 2 }
        }
        return run(seed: failing.seed, operations: operations, tracing: true)
    }

    /// The seeds whose random runs draw the state diagram of docs/architecture.md, with
    /// ``rareSequences``: the first 3,000, and 8394, whose run stops the host (plugin-host
    /// stop) while a new generation takes over, which they do not reach.
    static let diagramSeeds = Array(UInt64(1)...3_000) + [8394]

    /// A host that watches, restarts at most `limit` times, and backs off from the second
    /// restart in a row.
    static func watching(limit: Int) -> SimulatedWorld.Setup {
        var setup = SimulatedWorld.Setup()
        setup.machine.watching = true
        setup.machine.restart.limit = limit
        return setup
    }

    /// Sequences that reach changes of state random runs seldom do: a rollback past the
    /// restart limit (a failure leaving out does not heal), decided while handing over, and
    /// while taking over; a stop while a restart waits and a worker
    /// sent SIGKILL is yet to be reaped.
    static let rareSequences: [(setup: SimulatedWorld.Setup, operations: [FaultOperation])] = [
        (watching(limit: 1), [
            .advance(milliseconds: 100), .kill(.current, .killedWhileIdle), .advance(milliseconds: 200),
            .replace(plugin: 2, with: .good), .advance(milliseconds: 199), .advanceToNextDeadline, .advanceToNextDeadline,
            .kill(.newest, .crashNamingNobody), .advance(milliseconds: 200),
        ]),
        (watching(limit: 5), [
            .advance(milliseconds: 100), .kill(.current, .killedWhileIdle), .advance(milliseconds: 200),
            .replace(plugin: 2, with: .good), .advance(milliseconds: 199), .advanceToNextDeadline,
            .kill(.oldest, .killedWhileIdle), .advance(milliseconds: 1), .signal(.terminate, to: .supervisor), .advance(milliseconds: 10),
        ]),
        (watching(limit: 1), [
            .advance(milliseconds: 100), .kill(.current, .killedWhileIdle), .advance(milliseconds: 200),
            .replace(plugin: 2, with: .good), .advance(milliseconds: 199), .advanceToNextDeadline, .advanceToNextDeadline, .advanceToNextDeadline,
            .kill(.newest, .crashNamingNobody), .advance(milliseconds: 200),
        ]),
    ]

    /// Every change of state the diagram's runs make.
    static func diagramTransitions() -> Set<Transition> {
        var transitions: Set<Transition> = []
        for seed in diagramSeeds { transitions.formUnion(run(seed: seed).transitions) }
        for sequence in rareSequences { transitions.formUnion(run(setup: sequence.setup, seed: 1, operations: sequence.operations).transitions) }
        return transitions
    }

    /// The states of the supervisor and the events between them, as the runs of `seeds`
    /// visit them, as a Mermaid state diagram: drawn from the machine, so that it cannot
    /// drift from it.
    static func stateDiagram(of transitions: Set<Transition>) -> String {
        var edges: [String: [String]] = [:]
        var order: [String] = []
        for transition in transitions.sorted() {
            let key = "\(transition.from.replacingSpaces) --> \(transition.to.replacingSpaces)"
            if edges[key] == nil { order.append(key) }
            edges[key, default: []].append(transition.event)
        }
        let lines = ["```mermaid", "stateDiagram-v2", "    [*] --> starting"]
            + order.map { "    \($0): \(edges[$0]!.joined(separator: ", "))" } + ["    finished --> [*]", "```"]
        return lines.joined(separator: "\n")
    }

    /// A failure as a person reads it, and as a test replays it.
    static func report(_ outcome: Outcome) -> String {
        var lines = ["seed \(outcome.seed): \(outcome.violations.first ?? "")"]
        lines.append("shrunk to \(outcome.operations.count) operations; replay with: make simulate SEED=\(outcome.seed) SEQUENCES=1, or in a test:")
        lines.append("Simulation.run(seed: \(outcome.seed), operations: [\(outcome.operations.map(\.description).joined(separator: ", "))])")
        lines.append("trace:")
        // A line repeated is shown once, with its count.
        var collapsed: [(line: String, count: Int)] = []
        for line in outcome.trace {
            if collapsed.last?.line == line { collapsed[collapsed.count - 1].count += 1 } else { collapsed.append((line, 1)) }
        }
        lines += collapsed.suffix(120).map { $0.count == 1 ? $0.line : "\($0.line) (x\($0.count))" }
        return lines.joined(separator: "\n")
    }
}

private extension String {
    /// `backing_off`: a name Mermaid takes as a state's.
    var replacingSpaces: String { split(separator: " ").joined(separator: "_") }
}
