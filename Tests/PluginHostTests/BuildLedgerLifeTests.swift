import Testing

@testable import PluginHost

/// The ledger keeps each plugin's builds as one list, each build once with its life, and moves
/// a build only as docs/operations.md ("A build's life") says.
@Suite("The ledger: each build once, with one life, moved only as the table of lives says")
struct BuildLedgerLifeTests {
    private func build(_ version: String, inode: UInt64) -> PublishedPlugin {
        PublishedPlugin(
            name: "Ticker", file: "p/libTicker.so", version: version,
            identity: FileIdentity(device: 1, inode: inode, size: 100, modificationNanoseconds: Int64(inode), changeNanoseconds: 1), state: .running)
    }

    private func serving(_ builds: [PublishedPlugin], number: Int = 3) -> Generation {
        var generation = Generation(number: number, cause: .restart, startedAt: MonotonicInstant(nanoseconds: 1), life: .serving)
        generation.plugins = builds
        return generation
    }

    /// A ledger whose generations served `builds`, one after another.
    private func ledger(served builds: PublishedPlugin...) -> BuildLedger {
        var ledger = BuildLedger()
        for (index, build) in builds.enumerated() { ledger.handle(.speaks(serving([build], number: index + 1))) }
        return ledger
    }

    private func lives(_ ledger: BuildLedger) -> [String] {
        ledger.lives(of: "Ticker").map { "\($0.build.version) \($0.life.verdict)" }
    }

    private let crashed = LeaveOutReason.failed(.crashed(during: "the run phase", .segmentationFault))

    @Test("a build that serves, not on trial, is permanent; the ones before it are kept, newest first")
    func permanentAndKept() {
        let ledger = ledger(served: build("0.1.0", inode: 1), build("0.2.0", inode: 2), build("0.3.0", inode: 3))
        #expect(lives(ledger) == ["0.3.0 permanent", "0.2.0 kept", "0.1.0 kept"])
        #expect(ledger.record.permanent.map(\.version) == ["0.1.0", "0.2.0", "0.3.0"], "the record keeps a copy of each, the newest last")
    }

    @Test("a build on trial left out by a failure is left out, once; the build it replaced comes back as the plugin's")
    func trialLeftOut() {
        let before = build("0.1.0", inode: 1), onTrial = build("0.2.0", inode: 2)
        var ledger = ledger(served: before)
        ledger.handle(.holding([before], asked: [before]))
        ledger.handle(.trialBegins(onTrial, replacing: before, until: MonotonicInstant(nanoseconds: 30_000_000_000)))
        #expect(lives(ledger) == ["0.2.0 on trial", "0.1.0 permanent"])
        #expect(take({ ledger.handle(.failed(onTrial, because: crashed)) }).failedTrials.map(\.build) == [onTrial], "its trial failed")
        #expect(lives(ledger) == ["0.1.0 permanent", "0.2.0 left out"])
        #expect(ledger.trial(of: onTrial) == nil && !ledger.hasTrials, "its trial is over")
        #expect(take({ ledger.handle(.failed(onTrial, because: crashed)) }).isEmpty, "once")
        #expect(ledger.selection.substitutes.map(\.identity) == [before.identity], "the build it replaced loads in its place")
        #expect(ledger.record.onTrial.isEmpty)
        #expect(ledger.record.leftOut.map(\.version) == ["0.2.0"])
    }

    @Test("a permanent build left out is left out only, and the newest kept one is permanent: the one a start runs")
    func permanentLeftOut() {
        let first = build("1.0.1", inode: 1), second = build("1.0.3", inode: 2)
        var ledger = ledger(served: first, second)
        ledger.handle(.failed(second, because: crashed))
        #expect(lives(ledger) == ["1.0.1 permanent", "1.0.3 left out"])
        #expect(ledger.record.permanent.map(\.version) == ["1.0.1", "1.0.3"], "its copy is kept, should it be tried again")
        let started = SupervisionMachine.starting(.init(), record: ledger.record, at: MonotonicInstant(nanoseconds: 1)).0
        #expect(started.ledger.lives(of: "Ticker").map { "\($0.build.version) \($0.life.verdict)" } == ["1.0.1 permanent", "1.0.3 left out"],
                "a start reads the same lives from the record")
    }

    @Test("plugin-host restart PLUGIN: a build left out whose copy is kept is kept again, permanent when newest; one without a copy is forgotten")
    func forgiven() {
        let first = build("0.1.0", inode: 1), second = build("0.2.0", inode: 2), stranger = build("0.3.0", inode: 3)
        var ledger = ledger(served: first, second)
        ledger.handle(.failed(second, because: crashed))
        ledger.handle(.failed(stranger, because: crashed))
        #expect(lives(ledger) == ["0.1.0 permanent", "0.3.0 left out", "0.2.0 left out"], "left out newest first")
        ledger.handle(.forgiven(["Ticker"]))
        #expect(lives(ledger) == ["0.2.0 permanent", "0.1.0 kept"])
        #expect(ledger.selection.excluded.isEmpty)
    }

    @Test("the record keeps copies of the newest 3 builds that became permanent: the oldest loses its copy, a kept one is forgotten, a left-out one stays left out")
    func copiesBounded() {
        var ledger = BuildLedger()
        let builds = (1...5).map { build("0.\($0).0", inode: UInt64($0)) }
        ledger.handle(.speaks(serving([builds[0]], number: 1)))
        ledger.handle(.speaks(serving([builds[1]], number: 2)))
        ledger.handle(.failed(builds[0], because: crashed))
        ledger.handle(.speaks(serving([builds[2]], number: 3)))
        ledger.handle(.speaks(serving([builds[3]], number: 4)))
        #expect(lives(ledger) == ["0.4.0 permanent", "0.3.0 kept", "0.2.0 kept", "0.1.0 left out"])
        #expect(ledger.record.permanent.map(\.version) == ["0.2.0", "0.3.0", "0.4.0"])
        ledger.handle(.speaks(serving([builds[4]], number: 5)))
        #expect(lives(ledger) == ["0.5.0 permanent", "0.4.0 kept", "0.3.0 kept", "0.1.0 left out"])
        #expect(ledger.record.permanent.map(\.version) == ["0.3.0", "0.4.0", "0.5.0"])
    }

    @Test("a trial that passes makes its build permanent, and the build it replaced kept")
    func trialPasses() {
        let before = build("0.1.0", inode: 1), onTrial = build("0.2.0", inode: 2)
        var ledger = ledger(served: before)
        ledger.handle(.trialBegins(onTrial, replacing: before, until: MonotonicInstant(nanoseconds: 30_000_000_000)))
        ledger.handle(.speaks(serving([onTrial], number: 2)))
        #expect(lives(ledger) == ["0.2.0 on trial", "0.1.0 permanent"], "served, but on trial: not permanent yet")
        #expect(take({ ledger.handle(.trialPassed(name: "Ticker")) }) == [.trialPassed(BuildLedger.Trial(build: onTrial, replaced: before, until: MonotonicInstant(nanoseconds: 30_000_000_000), replacedHeld: false))])
        #expect(lives(ledger) == ["0.2.0 permanent", "0.1.0 kept"])
        #expect(take({ ledger.handle(.trialPassed(name: "Ticker")) }).isEmpty, "a trial passes once")
    }

    @Test("a build on trial whose file was written in place stays on trial as the build a restart loaded, replacing the same build before, until the same time")
    func trialGoesOnWithTheRewrittenBuild() {
        var ledger = BuildLedger()
        let before = build("0.1.0", inode: 1), onTrial = build("0.2.0", inode: 2), rewritten = build("0.2.1", inode: 3)
        let until = MonotonicInstant(nanoseconds: 30_000_000_000)
        ledger.handle(.trialBegins(onTrial, replacing: before, until: until))
        ledger.handle(.speaks(serving([rewritten])))
        let trial = ledger.trial(of: rewritten)
        #expect(trial?.replaced == before)
        #expect(trial?.until == until)
        #expect(ledger.trial(of: onTrial) == nil, "the bytes on trial are gone")
        #expect(!ledger.record.permanent.map(\.version).contains("0.2.1"), "a build on trial is not permanent")
        #expect(ledger.record.onTrial.map(\.version) == ["0.2.1"], "the record keeps the build on trial as it runs now")
    }

    @Test("a generation that serves the build a trial replaced does not carry the trial over to it")
    func buildBeforeIsNotOnTrial() {
        var ledger = BuildLedger()
        let before = build("0.1.0", inode: 1), onTrial = build("0.2.0", inode: 2)
        ledger.handle(.trialBegins(onTrial, replacing: before, until: MonotonicInstant(nanoseconds: 30_000_000_000)))
        ledger.handle(.speaks(serving([before])))
        #expect(ledger.trial(of: before) == nil)
        #expect(ledger.trial(of: onTrial) != nil)
    }

    @Test("a trial carried to the build a restart loaded in its place leaves the build it was of as it was: kept, since a copy of it is kept")
    func carriedTrialLeavesKeptBuild() {
        let first = build("0.1.0", inode: 1), second = build("0.2.0", inode: 2), third = build("0.3.0", inode: 3)
        var ledger = ledger(served: first, second)
        ledger.handle(.trialBegins(first, replacing: second, until: MonotonicInstant(nanoseconds: 30_000_000_000)))
        #expect(lives(ledger) == ["0.1.0 on trial", "0.2.0 permanent"])
        ledger.handle(.speaks(serving([third], number: 3)))
        #expect(lives(ledger) == ["0.3.0 on trial", "0.2.0 permanent", "0.1.0 kept"])
        #expect(ledger.trial(of: third)?.replaced == second)
    }
}
