import Testing

@testable import PluginHost

/// The host's own upgrade, simulated with two hosts' machines (``HostUpgradeWorld``): the
/// world's truth says which host serves and what systemd takes for the main process, and its
/// rules, written from docs/operations.md, check the hosts against it.
@Suite("The host's upgrade, simulated: whatever fails and whenever, one host serves, and systemd knows which")
struct HostUpgradeSimulationTests {
    @Test("a thousand random host upgrades, with faults at random moments, break no rule")
    func randomSequences() {
        for seed in UInt64(20_001)...21_000 {
            let outcome = HostUpgradeSimulation.run(seed: seed)
            #expect(outcome.violations.isEmpty, "\(HostUpgradeSimulation.report(outcome))")
            if !outcome.violations.isEmpty { return }
        }
    }

    @Test("a good file takes over; one that fails at any step leaves the host before serving, and systemd taking it for the main process",
          arguments: HostUpgradeWorld.CandidateBuild.allCases, [false, true])
    func eachFaultOfTheFileInstalled(candidate: HostUpgradeWorld.CandidateBuild, beside: Bool) throws {
        var world = Self.world(candidate, beside: beside)
        world.apply(.askUpgrade)
        world.advance(to: world.now + .seconds(10))
        world.checkSettled()
        #expect(world.violations.isEmpty, "\(world.violations)")
        let survivor = try #require(world.hosts.values.first { $0.isAlive })
        #expect(survivor.process == (candidate == .good ? world.newHost : HostUpgradeWorld.hostBefore))
        #expect(world.mainProcess == survivor.process)
        #expect(world.answers[1].map { answer in
            if case .hostUpgrade(let outcome) = answer { outcome.succeeded } else { false }
        } == (candidate == .good || candidate == .generationCrashesOnTrial || candidate == .hostCrashesOnTrial))
    }

    @Test("the generation that served crashes while the new host loads: the upgrade goes on, and the new host's generation serves")
    func servingGenerationCrashesWhileTheNewHostLoads() throws {
        var world = Self.world(.good, beside: false)
        world.apply(.askUpgrade)
        let loading = try #require(world.workers.values.first { $0.host != HostUpgradeWorld.hostBefore })
        #expect(loading.life == .loading)
        world.apply(.crashServing(.hostBefore))
        world.advance(to: world.now + .seconds(10))
        world.checkSettled()
        #expect(world.violations.isEmpty, "\(world.violations)")
        #expect(world.hosts[HostUpgradeWorld.hostBefore]?.ended?.reason == .gaveWay)
        #expect(world.newHost.flatMap { world.serving(in: $0).first } == loading.number)
    }

    @Test("systemctl stop during the trial stops both hosts, the host before last: systemd's main process is the last to end")
    func stopOnTrial() throws {
        var world = Self.world(.good, beside: false)
        world.apply(.askUpgrade)
        world.advance(to: world.now + .milliseconds(500))
        let newHost = try #require(world.newHost)
        #expect(world.mainProcess == newHost)
        world.apply(.stopService)
        world.advance(to: world.now + .seconds(30))
        #expect(world.violations.isEmpty, "\(world.violations)")
        let before = try #require(world.hosts[HostUpgradeWorld.hostBefore]?.ended)
        let new = try #require(world.hosts[newHost]?.ended)
        #expect(before.reason == .stopped && new.reason == .stopped)
        #expect(new.at <= before.at)
        #expect(world.mainProcess == HostUpgradeWorld.hostBefore)
    }

    @Test("the host before killed during the trial: the new host serves on its own, and says so")
    func hostBeforeKilledOnTrial() throws {
        var world = Self.world(.good, beside: true)
        world.apply(.askUpgrade)
        world.advance(to: world.now + .milliseconds(500))
        world.apply(.kill(.hostBefore))
        world.advance(to: world.now + .seconds(30))
        world.checkSettled()
        #expect(world.violations.isEmpty, "\(world.violations)")
        let newHost = try #require(world.newHost.flatMap { world.hosts[$0] })
        #expect(newHost.machine.records.lastHostUpgrade?.outcome == .tookOver(hostBefore: HostUpgradeWorld.hostBefore, alone: true))
    }

    /// A world whose first generation serves, with a 2 s trial.
    static func world(_ candidate: HostUpgradeWorld.CandidateBuild, beside: Bool) -> HostUpgradeWorld {
        var setup = HostUpgradeWorld.Setup()
        setup.candidate = candidate
        setup.beside = beside
        setup.machine.trial = .seconds(2)
        var world = HostUpgradeWorld(setup: setup, seed: 7)
        world.apply(.advance(milliseconds: 100))
        return world
    }
}
