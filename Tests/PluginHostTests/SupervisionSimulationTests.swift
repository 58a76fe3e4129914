import Foundation
import Testing

@testable import PluginHost

/// The supervisor's state machine, driven by the simulator: seeded random fault sequences
/// with the invariants checked after every step, and the sequences that once went wrong,
/// by name. `make simulate` runs as many random sequences as asked.
@Suite("Supervision, simulated: every fault sequence leaves the service up or ends it for a stated reason")
struct SupervisionSimulationTests {
    /// Plugins of the simulated directory, by name.
    private static let persistence = 0, domain = 1, echo = 2, ticker = 3

    @Test("a thousand random sequences of faults break no invariant")
    func randomSequences() {
        for seed in UInt64(10_001)...11_000 {
            let outcome = Simulation.run(seed: seed)
            #expect(outcome.violations.isEmpty, "\(Simulation.report(outcome))")
            if !outcome.violations.isEmpty { return }
        }
    }

    @Test("the state diagram of docs/architecture.md is the one the machine's runs draw (make diagram redraws it)")
    func stateDiagramIsTheMachines() throws {
        let transitions = Simulation.diagramTransitions()
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "docs/architecture.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        #expect(text.contains(Simulation.stateDiagram(of: transitions)), "run make diagram: the drawing is not the machine's")
    }

    @Test("the world checks a build's moves by docs/operations.md's table of a build's life, row for row")
    func worldsTableOfABuildsLifeIsTheDocuments() throws {
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "docs/operations.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        let header = "| from | to | what causes it |"
        let table = try #require(text.range(of: header).map { text[$0.upperBound...] })
        var documented: [WorldBuildLife: Set<WorldBuildLife>] = [:]
        func lives(_ cell: Substring) throws -> [WorldBuildLife] {
            try cell.split(separator: ",").map { word in
                let word = word.trimmingCharacters(in: .whitespaces)
                if word == "(a new file)" || word == "(forgotten)" { return .unnamed }
                return try #require(WorldBuildLife(verdict: word), "docs/operations.md: \(word) is no life of a build")
            }
        }
        for line in table.split(separator: "\n").dropFirst() {
            guard line.hasPrefix("| ") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            for from in try lives(Substring(cells[1])) {
                for to in try lives(Substring(cells[2])) where to != from { documented[from, default: []].insert(to) }
            }
        }
        #expect(documented == WorldBuildLife.table)
    }

    @Test("a crash during a rollback leaves the brought-back build out too; the host serves on without it")
    func crashDuringRollback() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        world.apply(.environmentBreaks(plugin: Self.echo, build: .crashesInBootstrap))
        world.apply(.replace(plugin: Self.echo, with: .throwsInBootstrap))
        world.apply(.advance(milliseconds: 2_000))
        world.apply(.advance(milliseconds: 2_000))
        #expect(world.violations == [])
        guard case .serving(let number) = world.machine.state else {
            Issue.record("the host does not serve: \(world.machine.state)")
            return
        }
        #expect(world.truth.evidence.keys.filter { $0.name == "Echo" }.count == 2, "both builds of Echo are left out")
        #expect(!Self.runs("Echo", in: number, world), "the service runs without Echo")
        #expect(Self.runs("Ticker", in: number, world))
        #expect(world.restarts.starts.count == 2, "the rollback and one restart: no loop")
    }

    @Test("after a rollback that worked, a crash of the brought-back build leaves it out; the service runs on")
    func crashAfterRollback() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        world.apply(.replace(plugin: Self.echo, with: .throwsInBootstrap))
        world.apply(.advance(milliseconds: 2_000))
        guard case .serving(let restored) = world.machine.state, Self.runs("Echo", in: restored, world) else {
            Issue.record("the build before did not come back: \(world.machine.state)")
            return
        }
        world.apply(.crash(.current, inPlugin: Self.echo))
        world.apply(.advance(milliseconds: 2_000))
        #expect(world.violations == [])
        guard case .serving(let number) = world.machine.state else {
            Issue.record("the host does not serve: \(world.machine.state)")
            return
        }
        #expect(!Self.runs("Echo", in: number, world))
        #expect(Self.runs("Ticker", in: number, world))
    }

    @Test("a plugin file written in place blames no plugin: the next generation loads the file as it is now")
    func fileWrittenInPlace() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        world.apply(.rewriteInPlace(plugin: Self.persistence, with: .good))
        world.apply(.advance(milliseconds: 2_000))
        #expect(world.violations == [])
        guard case .serving(let number) = world.machine.state else {
            Issue.record("the host does not serve: \(world.machine.state)")
            return
        }
        #expect(world.truth.evidence.isEmpty, "nothing is left out: \(world.truth.evidence.keys)")
        for name in ["Persistence", "Domain", "Echo", "Ticker"] { #expect(Self.runs(name, in: number, world), "\(name) runs") }
    }

    @Test("files that change while a candidate loads are taken up when it fails: the serving worker asked once, and that request is kept (seed 1479538)")
    func upgradeAskedWhileACandidateLoads() {
        // Generation 1 is stopped, a restart's candidate hangs loading Ticker's new build, and
        // Domain's file changes meanwhile: generation 1, resumed, asks once for the upgrade.
        let operations: [FaultOperation] = [
            .advance(milliseconds: 1000), .suspend(.newest), .replace(plugin: Self.ticker, with: .hangsInLoad), .advance(milliseconds: 5000),
            .ask(.restartLeftOut), .replace(plugin: Self.domain, with: .good),
        ]
        let outcome = Simulation.run(seed: 1_479_538, operations: operations)
        #expect(outcome.violations == [], "\(outcome.violations)")
    }

    @Test("a file written in place while a restart starts its plugin, which then fails, is said not added; never absent (seed 925796)")
    func failedAtRestartIsNotAdded() {
        let operations: [FaultOperation] = [
            .advance(milliseconds: 100), .crash(.current, inPlugin: Self.domain), .advanceToNextDeadline,
            .rewriteInPlace(plugin: Self.echo, with: .throwsInBootstrap), .advance(milliseconds: 5000),
        ]
        var world = SimulatedWorld(setup: Simulation.setup(seed: 925_796), seed: 925_796)
        for operation in operations { world.apply(operation) }
        #expect(world.violations == [])
        guard case .serving(let number) = world.machine.state else {
            Issue.record("the host does not serve: \(world.machine.state)")
            return
        }
        #expect(!Self.runs("Echo", in: number, world))
        let echo = world.machine.status.plugins.first { $0.name == "Echo" }
        #expect(echo?.state == .notAdded, "the status says what became of Echo: \(world.machine.status.plugins)")
        #expect(echo?.reason?.text.isEmpty == false)
        // The whole sequence of the issue, the environment turning the build good included.
        let outcome = Simulation.run(seed: 925_796, operations: operations + [.environmentBreaks(plugin: Self.echo, build: .good)])
        #expect(outcome.violations == [], "\(Simulation.report(outcome))")
    }

    @Test("an upgrade's new worker that cannot load a plugin that runs now is told to give up, that build is left out, and the serving worker serves on undisturbed")
    func candidateCannotLoadARunningPlugin() {
        var setup = Self.setup(watching: true)
        setup.beside = [Self.persistence, Self.domain, Self.echo, Self.ticker]
        var world = SimulatedWorld(setup: setup, seed: 1, tracing: true)
        world.apply(.advance(milliseconds: 100))
        guard case .serving(let serving) = world.machine.state else {
            Issue.record("the host does not serve: \(world.machine.state)")
            return
        }
        world.apply(.replace(plugin: Self.domain, with: .failsToLoad))
        world.apply(.advance(milliseconds: 2_000))
        #expect(world.violations == [])
        #expect(world.trace.contains { $0.contains("error: the new worker cannot load plugin Domain, which runs now") }, "\(world.trace.joined(separator: "\n"))")
        #expect(world.trace.contains { $0.contains("CandidateVerdict.abandon") })
        #expect(world.machine.state == .serving(serving), "the generation before serves on")
        #expect(world.workers[serving]?.askedToStop == false)
        #expect(world.truth.evidence.keys.map(\.name) == ["Domain"])
    }

    @Test("an upgrade's new worker bootstraps beside the serving one only when every plugin it loaded allows it")
    func besideOnlyWhenEveryPluginAllowsIt() {
        for beside in [[Self.persistence, Self.domain, Self.echo, Self.ticker], [Self.persistence, Self.domain, Self.echo]] {
            var setup = Self.setup(watching: true)
            setup.beside = Set(beside)
            var world = SimulatedWorld(setup: setup, seed: 1, tracing: true)
            world.apply(.advance(milliseconds: 100))
            world.apply(.replace(plugin: Self.echo, with: .good))
            world.apply(.advance(milliseconds: 2_000))
            #expect(world.violations == [])
            let verdicts = world.trace.filter { $0.contains("CandidateVerdict.bootstrap") }
            #expect(verdicts.count == 1 && verdicts[0].contains(beside.count == 4 ? "bootstrapBeside" : "bootstrapAfter"), "\(verdicts)")
            guard case .serving(let number) = world.machine.state else {
                Issue.record("the host does not serve: \(world.machine.state)")
                return
            }
            #expect(number == 2 && Self.runs("Echo", in: number, world))
        }
    }

    @Test("a crash record naming nobody blames nobody, though a plugin failed to load in that worker earlier (seed 708)")
    func namelessCrashAfterAFailedLoad() {
        let operations: [FaultOperation] = [
            .advance(milliseconds: 250), .rewriteInPlace(plugin: Self.domain, with: .failsToLoad), .advance(milliseconds: 20),
            .replace(plugin: Self.persistence, with: .good), .advance(milliseconds: 5000), .kill(.current, .crashNamingNobody),
        ]
        let outcome = Simulation.run(seed: 708, operations: operations)
        #expect(outcome.violations == [], "\(Simulation.report(outcome))")
    }

    @Test("a running plugin's file turned into junk fails an upgrade as a whole; a new build it kept from loading waits for its file to change (seed 1133906)")
    func junkFailsAnUpgradeAsAWhole() {
        let operations: [FaultOperation] = [
            .advance(milliseconds: 34204), .replace(plugin: Self.echo, with: .failsToLoad), .rewriteInPlace(plugin: Self.persistence, with: .good),
            .advance(milliseconds: 1000), .replace(plugin: Self.domain, with: .good), .replace(plugin: Self.persistence, with: .junk),
        ]
        let outcome = Simulation.run(seed: 1_133_906, operations: operations)
        #expect(outcome.violations == [], "\(Simulation.report(outcome))")
    }

    @Test("every fault sequence that once found a bug passes, replayed by its seed", arguments: Regressions.all)
    func regression(_ sequence: Regressions.Sequence) {
        let outcome = Simulation.run(seed: sequence.seed, operations: sequence.operations)
        #expect(outcome.violations == [], "\(Simulation.report(outcome))")
    }

    @Test("the first generation's plugin crashes once its report is out and its services run, before its word that it is ready reaches the supervisor: a restart without it, not the host's end")
    func crashAfterTheFirstReport() {
        var setup = Self.setup(watching: false)
        setup.readyLatency = .milliseconds(5)
        var world = SimulatedWorld(setup: setup, seed: 1)
        // Each millisecond until generation 1's services run and its word is on its way.
        for _ in 0..<200 where !(world.workers[1]?.saidReady ?? false) { world.apply(.advance(milliseconds: 1)) }
        guard let first = world.workers[1], first.saidReady, !first.readySeen, case .starting(1) = world.machine.state else {
            Issue.record("generation 1 did not reach the moment: \(world.machine.state)")
            return
        }
        world.apply(.crash(.current, inPlugin: Self.ticker))
        world.apply(.advance(milliseconds: 1_000))
        #expect(world.violations == [])
        #expect(world.exit == nil, "the host ended: \(String(describing: world.exit))")
        guard case .serving(let number) = world.machine.state else {
            Issue.record("the host does not serve: \(world.machine.state)")
            return
        }
        #expect(number == 2)
        #expect(!Self.runs("Ticker", in: number, world) && Self.runs("Echo", in: number, world))
    }

    @Test("a worker killed from outside while its services wait blames nobody: the same plugins restart")
    func killedFromOutside() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        world.apply(.kill(.current, .killedWhileIdle))
        world.apply(.advance(milliseconds: 1_000))
        #expect(world.violations == [])
        guard case .serving(let number) = world.machine.state else {
            Issue.record("the host does not serve: \(world.machine.state)")
            return
        }
        #expect(world.truth.evidence.isEmpty)
        #expect(Self.runs("Echo", in: number, world) && Self.runs("Ticker", in: number, world))
        #expect(world.restarts.starts.count == 1, "counted against the limit")
    }

    @Test("a worker stopped by SIGSTOP past --timeout while its services wait blames nobody: the same plugins restart")
    func stoppedFromOutside() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        world.apply(.suspend(.current))
        world.apply(.advance(milliseconds: 31_000))
        #expect(world.violations == [])
        guard case .serving(let number) = world.machine.state, number > 1 else {
            Issue.record("no new generation serves: \(world.machine.state)")
            return
        }
        #expect(world.truth.evidence.isEmpty, "nothing is left out")
        for name in ["Persistence", "Domain", "Echo", "Ticker"] { #expect(Self.runs(name, in: number, world), "\(name) runs") }
    }

    @Test("thirty SIGHUPs while a restart recovers are one reload, made once the new generation serves")
    func reloadsCoalesce() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        world.apply(.kill(.current, .killedWhileIdle))
        world.apply(.advance(milliseconds: 1))
        guard case .recovering = world.machine.state else {
            Issue.record("not recovering: \(world.machine.state)")
            return
        }
        for _ in 1...30 { world.apply(.signal(.hangUp, to: .supervisor)) }
        world.apply(.advance(milliseconds: 1_000))
        #expect(world.violations == [])
        #expect(world.reloads.made == 1)
    }

    @Test("a crash healed by leaving a new build out restarts at once, however many came before")
    func healedFailuresDoNotBackOff() {
        var world = SimulatedWorld(setup: Self.setup(watching: true, limit: 10), seed: 3)
        world.apply(.advance(milliseconds: 100))
        for round in 1...4 {
            if round > 1 {
                world.apply(.replace(plugin: Self.ticker, with: .good))
                world.apply(.advance(milliseconds: 1_000))
            }
            world.apply(.crash(.current, inPlugin: Self.ticker))
            world.apply(.advance(milliseconds: 1))
            if case .backingOff = world.machine.state { Issue.record("round \(round) backs off") }
            world.apply(.advance(milliseconds: 1_000))
        }
        #expect(world.violations == [])
        #expect(world.restarts.starts.count == 4)
        #expect(world.truth.evidence.keys.filter { $0.name == "Ticker" }.count == 4, "each build of Ticker is left out")
    }

    @Test("after a rollback the status lists each plugin once: the build brought back serves")
    func statusAfterRollback() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        world.apply(.replace(plugin: Self.echo, with: .throwsInBootstrap))
        world.apply(.advance(milliseconds: 2_000))
        world.apply(.ask(.status))
        #expect(world.violations == [])
        let plugins = world.machine.status.plugins
        #expect(Set(plugins.map(\.name)).count == plugins.count, "\(plugins.map(\.name))")
        let echo = plugins.first { $0.name == "Echo" }
        #expect(echo?.state == .serving)
        #expect(echo?.reason?.text.contains("the build that ran before") == true, "\(echo?.reason?.text ?? "")")
    }

    @Test("SIGTERM while a new generation loads ends the host at once, not at the load's deadline")
    func stopWhileLoading() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        world.apply(.replace(plugin: Self.echo, with: .hangsInLoad))
        world.apply(.advance(milliseconds: 500))
        guard case .upgrading = world.machine.state else {
            Issue.record("no upgrade under way: \(world.machine.state)")
            return
        }
        let stoppedAt = world.now
        world.apply(.signal(.terminate, to: .supervisor))
        world.apply(.advance(milliseconds: 500))
        #expect(world.violations == [])
        #expect(world.exit?.status == .success)
        #expect(world.exit?.reason == .stopped)
        #expect(world.exit.map { $0.at - stoppedAt < .milliseconds(100) } == true, "\(String(describing: world.exit))")
    }

    @Test("a process an old generation daemonized ends when that generation ends, across upgrades")
    func daemonsEndWithTheirGeneration() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        for _ in 1...3 {
            world.apply(.daemonize(.current))
            world.apply(.replace(plugin: Self.ticker, with: .good))
            world.apply(.advance(milliseconds: 2_000))
        }
        #expect(world.violations == [])
        guard case .serving = world.machine.state else {
            Issue.record("the host does not serve: \(world.machine.state)")
            return
        }
    }

    @Test("a crash loop backs off: the first restart is at once, each one more in a row waits twice as long")
    func crashLoopBacksOff() {
        var world = SimulatedWorld(setup: Self.setup(watching: true, limit: 10), seed: 7)
        world.apply(.advance(milliseconds: 100))
        var waits: [Duration] = []
        for _ in 1...4 {
            world.apply(.kill(.current, .killedWhileIdle))
            world.apply(.advance(milliseconds: 1))
            if case .backingOff(let until, _) = world.machine.state {
                waits.append(until - world.now)
            } else {
                waits.append(.zero)
            }
            world.apply(.advance(milliseconds: 1_000))
        }
        #expect(world.violations == [])
        #expect(waits == [.zero, .milliseconds(100), .milliseconds(200), .milliseconds(400)])
        #expect(world.restarts.starts.count == 4)
    }

    @Test("SIGTERM while a restart waits ends the host at once")
    func stopWhileBackingOff() {
        var world = SimulatedWorld(setup: Self.setup(watching: true, limit: 10), seed: 8)
        world.apply(.advance(milliseconds: 100))
        world.apply(.kill(.current, .killedWhileIdle))
        world.apply(.advance(milliseconds: 100))
        world.apply(.kill(.current, .killedWhileIdle))
        world.apply(.advance(milliseconds: 5))
        guard case .backingOff = world.machine.state else {
            Issue.record("not backing off: \(world.machine.state)")
            return
        }
        world.apply(.signal(.terminate, to: .supervisor))
        #expect(world.exit?.status == .success)
        #expect(world.exit?.reason == .stopped)
        #expect(world.violations == [])
    }

    @Test("the machine is total: every event in every state is handled, even about generations it never started")
    func unknownGenerations() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        var machine = world.machine
        let now = world.now
        let events: [SupervisionEvent] = [
            .ready(generation: 99, plugins: []), .candidate(generation: 99, CandidateReport(stage: .loaded, running: [], failed: [], unusableFiles: []), plugins: []), .upgradeRequested(generation: 99, plugins: []),
            .notification(generation: 99, .status("x")), .health(generation: 99, goodUntil: nil),
            .overran(generation: 99, Overrun(owner: nil, phase: .load, policy: .endHost, allowed: .seconds(1))),
            .suspended(generation: 99, process: ProcessID(rawValue: 1), by: .stop, running: []),
            .resumed(generation: 99, process: ProcessID(rawValue: 1)),
            .ended(generation: 99, EndingEvidence(termination: .exited(0))), .couldNotStart(generation: 99, reason: "x"),
        ]
        for event in events { #expect(machine.handle(event, at: now).isEmpty, "\(event)") }
    }

    // MARK: Helpers

    static func setup(watching: Bool, limit: Int = 5) -> SimulatedWorld.Setup {
        var setup = SimulatedWorld.Setup()
        setup.machine.watching = watching
        setup.machine.restart.limit = limit
        return setup
    }

    /// The sequences, shrunk, in which the simulator found a request left unanswered.
    static let unansweredOnce: [(UInt64, [FaultOperation])] = [
        (667, [.advance(milliseconds: 100), .refuseNextFork, .ask(.restartLeftOut)]),
        (3733, [.advance(milliseconds: 20), .hang(.oldest), .ask(.reload)]),
        (37539, [.advance(milliseconds: 1000), .ask(.restartLeftOut), .environmentBreaks(plugin: 2, build: .hangsInLoad), .ask(.reload)]),
    ]

    static func watchingWorld() -> SimulatedWorld {
        SimulatedWorld(setup: setup(watching: true), seed: 1)
    }

    @Test("every operator's request is answered: a restart that cannot fork, a reload whose generation ends, a reload during a failed upgrade",
          arguments: Self.unansweredOnce)
    func operatorsAreAnswered(seed: UInt64, operations: [FaultOperation]) {
        let outcome = Simulation.run(seed: seed, operations: operations)
        #expect(outcome.violations == [], "\(Simulation.report(outcome))")
    }

    @Test("an operator's restart cuts a backoff short, and the host serves again")
    func restartCutsTheBackoff() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        world.apply(.kill(.current, .killedWhileIdle))
        world.apply(.advance(milliseconds: 100))
        world.apply(.kill(.current, .killedWhileIdle))
        world.apply(.advance(milliseconds: 1))
        guard case .backingOff = world.machine.state else {
            Issue.record("no backoff: \(world.machine.state)")
            return
        }
        world.apply(.ask(.restart))
        world.apply(.advance(milliseconds: 100))
        #expect(world.violations == [])
        guard case .serving = world.machine.state else {
            Issue.record("the host does not serve: \(world.machine.state)")
            return
        }
    }

    @Test("a restart whose files on disk would break a running plugin is refused while the host serves; after a crash it still heals")
    func restartBrokenOnDiskIsRefused() {
        var world = Self.watchingWorld()
        world.apply(.advance(milliseconds: 100))
        world.apply(.ask(.restartBrokenOnDisk))
        world.apply(.advance(milliseconds: 100))
        #expect(world.violations == [])
        #expect(world.workers.keys.sorted() == [1], "no generation started")
        guard case .serving(1) = world.machine.state else {
            Issue.record("generation 1 does not serve: \(world.machine.state)")
            return
        }
        // Backing off, nothing serves: the restart starts the recovery at once, whatever the files say.
        world.apply(.kill(.current, .killedWhileIdle))
        world.apply(.advance(milliseconds: 100))
        world.apply(.kill(.current, .killedWhileIdle))
        world.apply(.advance(milliseconds: 1))
        guard case .backingOff = world.machine.state else {
            Issue.record("no backoff: \(world.machine.state)")
            return
        }
        world.apply(.ask(.restartBrokenOnDisk))
        world.apply(.advance(milliseconds: 100))
        #expect(world.violations == [])
        guard case .serving = world.machine.state else {
            Issue.record("the host does not serve: \(world.machine.state)")
            return
        }
    }

    /// Whether the worker of generation `number` runs the plugin `name`, as the world knows.
    static func runs(_ name: String, in number: Int, _ world: SimulatedWorld) -> Bool {
        world.workers[number]?.running.contains { $0.name == name } == true
    }
}

@Suite("Supervision, simulated: the rare changes of state the diagram draws")
struct RareSupervisionSequenceTests {
    @Test("a failure of a generation taking over, past the restart limit, ends the host naming the limit")
    func takeOverPastTheLimit() {
        let (setup, operations) = Simulation.rareSequences[2]
        let outcome = Simulation.run(setup: setup, seed: 1, operations: operations, tracing: true)
        #expect(outcome.violations == [])
        #expect(outcome.transitions.contains(Transition(from: "taking over", event: "worker ended", to: "finished")), "\(outcome.trace.joined(separator: "\n"))")
        #expect(outcome.ending == "restartLimit 70")
    }

    @Test("a rollback decided while handing over, past the restart limit, ends the host naming the limit")
    func rollbackPastTheLimit() {
        let (setup, operations) = Simulation.rareSequences[0]
        let outcome = Simulation.run(setup: setup, seed: 1, operations: operations, tracing: true)
        #expect(outcome.violations == [])
        #expect(outcome.transitions.contains(Transition(from: "handing over", event: "worker ended", to: "finished")), "\(outcome.trace.joined(separator: "\n"))")
        #expect(outcome.ending == "restartLimit 70")
    }

    @Test("a stop while a restart waits and a killed worker is still to be reaped ends once it is")
    func stopWhileBackingOffWithAWorkerToReap() {
        let (setup, operations) = Simulation.rareSequences[1]
        let outcome = Simulation.run(setup: setup, seed: 1, operations: operations, tracing: true)
        #expect(outcome.violations == [])
        #expect(outcome.transitions.contains(Transition(from: "backing off", event: "SIGINT/SIGTERM", to: "stopping")), "\(outcome.trace.joined(separator: "\n"))")
        #expect(outcome.ending == "stopped 0")
    }
}
