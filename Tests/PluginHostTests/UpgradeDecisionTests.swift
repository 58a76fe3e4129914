import Testing

@testable import PluginHost

/// What the machine decides of an upgrade, event by event, where the simulated world cannot
/// reach: its serving worker answers a rescan at once, so files never change for it while a
/// candidate loads.
@Suite("Upgrades: files that change while a candidate loads are taken up when it fails")
struct UpgradeDecisionTests {
    private let echo = PublishedPlugin(
        name: "Echo", file: "plugins/libEcho.so", version: "1.0.0",
        identity: FileIdentity(device: 1, inode: 7, size: 100, modificationNanoseconds: 11, changeNanoseconds: 12), state: .running)

    /// Echo's new build, 1.1.0, that an upgrade's candidate loads.
    private func newEcho(_ state: SupervisionPage.PluginState) -> PublishedPlugin {
        PublishedPlugin(
            name: "Echo", file: "plugins/libEcho.so", version: "1.1.0",
            identity: FileIdentity(device: 1, inode: 8, size: 120, modificationNanoseconds: 21, changeNanoseconds: 21), state: state)
    }

    /// A host that serves generation 1, whose worker asked for an upgrade: generation 2 loads
    /// beside it.
    private func upgrading() -> SupervisionMachine {
        var configuration = SupervisionMachine.Configuration()
        configuration.watching = true
        var (machine, _) = SupervisionMachine.starting(configuration, at: MonotonicInstant(nanoseconds: 1))
        _ = machine.handle(.started(generation: 1, substitutes: [], rewritten: []), at: MonotonicInstant(nanoseconds: 2))
        _ = machine.handle(.ready(generation: 1, plugins: [echo]), at: MonotonicInstant(nanoseconds: 3))
        let actions = machine.handle(.upgradeRequested(generation: 1, plugins: [echo]), at: MonotonicInstant(nanoseconds: 4))
        #expect(actions.contains { if case .start(let plan) = $0 { plan.number == 2 } else { false } })
        return machine
    }

    /// The candidate, generation 2, fails to load: its worker gives up, as the host meant.
    private func candidateFails(_ machine: inout SupervisionMachine) -> [SupervisionAction] {
        machine.handle(.ended(generation: 2, EndingEvidence(termination: .exited(1), intendedExit: 1)), at: MonotonicInstant(nanoseconds: 6))
    }

    private func starts(_ actions: [SupervisionAction]) -> [Int] {
        actions.compactMap { if case .start(let plan) = $0 { plan.number } else { nil } }
    }

    @Test("the serving worker asked again while the candidate loaded: when the candidate fails, another upgrade starts at once")
    func askedMeanwhileIsTakenUp() {
        var machine = upgrading()
        _ = machine.handle(.upgradeRequested(generation: 1, plugins: [echo]), at: MonotonicInstant(nanoseconds: 5))
        let actions = candidateFails(&machine)
        #expect(starts(actions) == [3])
        #expect(machine.state.hostState == .upgrading)
    }

    @Test("the candidate's worker could not even be started: files that changed meanwhile are taken up by another upgrade at once all the same")
    func askedMeanwhileIsTakenUpAfterARefusedFork() {
        var machine = upgrading()
        _ = machine.handle(.upgradeRequested(generation: 1, plugins: [echo]), at: MonotonicInstant(nanoseconds: 5))
        let actions = machine.handle(.couldNotStart(generation: 2, reason: "fork: Resource temporarily unavailable"), at: MonotonicInstant(nanoseconds: 6))
        #expect(starts(actions) == [3])
        #expect(machine.state.hostState == .upgrading)
    }

    @Test("a candidate waiting to take over that cannot run what the generation before ran at its end gives up, before it bootstraps: what that generation handed over goes to the restore, not to it")
    func aCandidateGivenUpBeforeItBootstrapsInheritsNothing() throws {
        // The serving worker's plugins do not grow once it serves (a plugin dropped in comes
        // with a new generation), so the simulated world never reaches this: the machine is
        // told it event by event.
        var machine = upgrading()
        _ = machine.handle(.started(generation: 2, substitutes: [], rewritten: []), at: MonotonicInstant(nanoseconds: 5))
        let echoAfter = CandidateReport.Plugin(name: "Echo", number: PluginNumber(0), upgrade: .after)
        // It found Extra's file and could not load it; the generation before did not run Extra then.
        let extraFailed = CandidateReport.Plugin(name: "Extra", number: PluginNumber(1), upgrade: .beside)
        let loaded = machine.handle(.candidate(generation: 2, CandidateReport(stage: .loaded, running: [echoAfter], failed: [extraFailed], unusableFiles: []),
                                               plugins: [newEcho(.published)]), at: MonotonicInstant(nanoseconds: 6))
        #expect(loaded.contains(.ask(generation: 1, .stop(signal: .terminate))), "the order after: the generation before stops first")
        _ = machine.handle(.handedOver(generation: 1, items: ["Echo/item-0"]), at: MonotonicInstant(nanoseconds: 7))
        let extra = PublishedPlugin(name: "Extra", file: "plugins/libExtra.so", version: "1.0.0",
                                    identity: FileIdentity(device: 1, inode: 9, size: 10, modificationNanoseconds: 31, changeNanoseconds: 31), state: .running)
        let ended = machine.handle(.ended(generation: 1, EndingEvidence(termination: .exited(0), plugins: [echo, extra])), at: MonotonicInstant(nanoseconds: 8))
        #expect(ended.contains(.ask(generation: 2, .verdict(.abandon))), "\(ended)")
        #expect(!ended.contains { if case .handOver(_, 2) = $0 { true } else { false } }, "\(ended)")
        let restored = machine.handle(.ended(generation: 2, EndingEvidence(termination: .exited(1), intendedExit: 1, plugins: [newEcho(.published)])),
                                      at: MonotonicInstant(nanoseconds: 9))
        #expect(starts(restored) == [3], "\(restored)")
        #expect(restored.contains(.handOver(from: 1, to: 3)), "\(restored)")
    }

    @Test("a candidate that gave up on a new build it could not bootstrap counts a failure of that plugin, the build's version the last; one the host ended as not needed counts none")
    func aCandidateThatGaveUpCountsAFailure() throws {
        let newEcho = self.newEcho(.published)
        var machine = upgrading()
        _ = machine.handle(.ended(generation: 2, EndingEvidence(termination: .exited(1), intendedExit: 1, failedPlugin: PluginNumber(0), plugins: [newEcho])),
                           at: MonotonicInstant(nanoseconds: 6))
        let status = try #require(machine.status.plugins.first { $0.name == "Echo" })
        #expect(status.failures == 1)
        #expect(status.lastFailure?.version == "1.1.0" && status.lastFailure?.at == MonotonicInstant(nanoseconds: 6))

        var notNeeded = upgrading()
        // The serving worker crashes, naming nobody: the candidate is not needed and is ended.
        _ = notNeeded.handle(.ended(generation: 1, EndingEvidence(termination: .signalled(.segmentationFault))), at: MonotonicInstant(nanoseconds: 5))
        _ = notNeeded.handle(.ended(generation: 2, EndingEvidence(termination: .signalled(.kill), failedPlugin: PluginNumber(0), plugins: [newEcho])),
                             at: MonotonicInstant(nanoseconds: 6))
        #expect(notNeeded.status.plugins.first { $0.name == "Echo" }?.failures ?? 0 == 0)
    }

    @Test("a serving generation ended for a plugin that ran past its limit, while the candidate beside it took over, failed all the same: that build is left out, and the candidate serves on with no restart")
    func aGenerationReplacedWhileEndedFailed() throws {
        let newEcho = self.newEcho(.running)
        var machine = upgrading()
        let overrun = Overrun(owner: PluginNumber(0), phase: .reload, policy: .endHost, allowed: .seconds(2), stall: nil)
        let killed = machine.handle(.overran(generation: 1, overrun), at: MonotonicInstant(nanoseconds: 5))
        #expect(killed.contains(.kill(generation: 1, probing: false)))
        let echoBeside = CandidateReport.Plugin(name: "Echo", number: PluginNumber(0), upgrade: .beside)
        _ = machine.handle(.candidate(generation: 2, CandidateReport(stage: .loaded, running: [echoBeside], failed: [], unusableFiles: []), plugins: [newEcho]),
                           at: MonotonicInstant(nanoseconds: 6))
        _ = machine.handle(.candidate(generation: 2, CandidateReport(stage: .bootstrapped, running: [echoBeside], failed: [], unusableFiles: []), plugins: [newEcho]),
                           at: MonotonicInstant(nanoseconds: 7))
        _ = machine.handle(.ready(generation: 2, plugins: [newEcho]), at: MonotonicInstant(nanoseconds: 8))
        #expect(machine.state == .serving(2))
        let actions = machine.handle(.ended(generation: 1, EndingEvidence(termination: .signalled(.kill), plugins: [echo])), at: MonotonicInstant(nanoseconds: 9))
        #expect(starts(actions).isEmpty, "no restart: generation 2 serves")
        #expect(machine.state == .serving(2))
        #expect(machine.ledger.isLeftOut(echo), "the build that ran past its limit is left out")
        #expect(!machine.ledger.isLeftOut(newEcho))
        #expect(machine.ledger.record.leftOut.map(\.version) == ["1.0.0"], "and the record keeps it so")
    }

    @Test("nothing changed while the candidate loaded: when it fails, the serving generation serves on, and no upgrade starts")
    func nothingAskedMeanwhile() {
        var machine = upgrading()
        let actions = candidateFails(&machine)
        #expect(starts(actions) == [])
        #expect(machine.state == .serving(1))
    }
}
