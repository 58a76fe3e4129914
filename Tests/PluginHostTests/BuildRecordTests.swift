import Testing

@testable import PluginHost

/// What the machine does with the record of what a host before it proved.
@Suite("A start honours the record: what it leaves out stays out, what was on trial is tried again, the permanent build runs")
struct BuildRecordTests {
    private let ticker = BuildRecord.LeftOut(
        name: "Ticker", file: "plugins/libTicker.so", version: "0.3.1",
        identity: FileIdentity(device: 1, inode: 7, size: 100, modificationNanoseconds: 11, changeNanoseconds: 12),
        reason: .failed(.crashed(during: "the run phase", .segmentationFault)))

    @Test("the first generation leaves out each build the record keeps, and the start says so; the record is not written again for it")
    func firstGenerationLeavesOut() throws {
        let (machine, actions) = SupervisionMachine.starting(.init(), record: BuildRecord(leftOut: [ticker]), at: MonotonicInstant(nanoseconds: 1))
        let plan = try #require(actions.compactMap { if case .start(let plan) = $0 { plan } else { nil } }.first)
        #expect(plan.builds.excluded.map(\.identity) == [ticker.identity])
        #expect(plan.builds.excluded.map(\.reason) == [ticker.reason])
        #expect(actions.contains(.say(.leftOutByRecord([ticker]))))
        #expect(!actions.contains { if case .keepRecord = $0 { true } else { false } })
        #expect(machine.ledger.record == BuildRecord(leftOut: [ticker]))
        #expect(machine.ledger.isLeftOut(PublishedPlugin(name: "Ticker", file: "elsewhere/libTicker.so", version: "0.3.1", identity: ticker.identity)))
    }

    @Test("an empty record says nothing at start")
    func emptyRecord() {
        let (_, actions) = SupervisionMachine.starting(.init(), record: BuildRecord(), at: MonotonicInstant(nanoseconds: 1))
        #expect(!actions.contains { if case .say(.leftOutByRecord) = $0 { true } else { false } })
    }

    @Test("a plugin left out whose file was then removed is 'removed' once the generation that serves finds no file of it")
    func leftOutThenRemoved() {
        var ledger = BuildLedger()
        let kept = PublishedPlugin(name: "Echo", file: "p/libEcho.so", version: "1.0.0", identity: identity(1), state: .running)
        let crasher = PublishedPlugin(name: "Ticker", file: "p/libTicker.so", version: "0.1.0", identity: identity(2), state: .running)
        ledger.handle(.failed(crasher, because: .failed(.crashed(during: "the run phase", .segmentationFault))))
        var generation = Generation(number: 2, cause: .start, startedAt: MonotonicInstant(nanoseconds: 1), life: .serving)
        generation.plugins = [kept]
        let serving = PluginCondition(name: "Echo", state: .serving, file: kept.file, version: kept.version, build: kept.identity)
        // Its file is there: the generation tells it is left out.
        generation.conditions = [serving, PluginCondition(name: "Ticker", state: .leftOut, file: crasher.file, reason: "crashed during the run phase: SIGSEGV")]
        ledger.handle(.speaks(generation))
        #expect(ledger.statuses.first { $0.name == "Ticker" }?.state == .leftOut)
        #expect(ledger.takeSummary().leftOut.map(\.name) == ["Ticker"])
        // Its file is gone: the generation, rescanning, tells nothing of it.
        generation.conditions = [serving]
        ledger.handle(.speaks(generation))
        let removed = ledger.statuses.first { $0.name == "Ticker" }
        #expect(removed?.state == .removed)
        #expect(removed?.reason == .fileGone)
        #expect(ledger.takeSummary().leftOut.isEmpty, "STATUS= no longer says it is left out")
        #expect(ledger.isLeftOut(crasher), "its build stays left out, should the same file come back")
    }

    @Test("a plugin blamed before whose file was removed is 'removed' while a generation serves, and 'not serving' only while none does")
    func removedPlugin() {
        var ledger = BuildLedger()
        let kept = PublishedPlugin(name: "Echo", file: "p/libEcho.so", version: "1.0.0", identity: identity(1), state: .running)
        var gone = PublishedPlugin(name: "Ticker", file: "p/libTicker.so", version: "0.1.0", identity: identity(2), state: .running)
        var generation = Generation(number: 1, cause: .start, startedAt: MonotonicInstant(nanoseconds: 1), life: .serving)
        generation.plugins = [kept, gone]
        ledger.handle(.speaks(generation))
        ledger.handle(.blamed(name: "Ticker", FailureRecord(at: MonotonicInstant(nanoseconds: 2), summary: .crashed(during: "the run phase", .segmentationFault))))
        gone.state = .removed
        generation.plugins = [kept, gone]
        ledger.handle(.speaks(generation))
        let removed = ledger.statuses.first { $0.name == "Ticker" }
        #expect(removed?.state == .removed)
        #expect(removed?.reason == .fileGone)
        #expect(removed?.failures == 1)
        ledger.handle(.speaks(nil))
        #expect(ledger.statuses.first { $0.name == "Echo" }?.state == .notServing, "no generation serves: what ran waits for the next")
    }

    @Test("the record keeps at most the newest few builds left out of each plugin")
    func bounded() {
        var ledger = BuildLedger()
        for inode in 1...20 {
            let identity = FileIdentity(device: 1, inode: UInt64(inode), size: 1, modificationNanoseconds: Int64(inode), changeNanoseconds: 1)
            ledger.handle(.failed(PublishedPlugin(name: "Ticker", file: "plugins/libTicker.so", version: "0.\(inode)", identity: identity), because: .recorded("crashed")))
        }
        #expect(ledger.record.leftOut.map(\.version) == (13...20).map { "0.\($0)" })
    }

    private func identity(_ inode: UInt64) -> FileIdentity {
        FileIdentity(device: 1, inode: inode, size: 100, modificationNanoseconds: Int64(inode), changeNanoseconds: 1)
    }

    private func plans(in actions: [SupervisionAction]) -> [GenerationPlan] {
        actions.compactMap { if case .start(let plan) = $0 { plan } else { nil } }
    }

    @Test("a build on trial when the host stopped does not start as permanent: the permanent build runs in its place; once the host serves, an upgrade tries it again")
    func trialAwaitsServing() throws {
        let permanent = BuildRecord.Build(name: "Ticker", file: "/p/libTicker.so", version: "0.3.0", identity: identity(5), copy: identity(50))
        let onTrial = BuildRecord.Build(name: "Ticker", file: "/p/libTicker.so", version: "0.3.1", identity: identity(6))
        var (machine, actions) = SupervisionMachine.starting(
            .init(), record: BuildRecord(permanent: [permanent], onTrial: [onTrial]), at: MonotonicInstant(nanoseconds: 1))
        let first = try #require(plans(in: actions).first)
        #expect(first.builds.excluded.map(\.identity) == [onTrial.identity])
        #expect(first.builds.excluded.first?.reason == .onTrialWhenTheHostStopped)
        #expect(first.builds.substitutes.map(\.identity) == [permanent.identity])
        #expect(actions.contains(.say(.awaitingTrialByRecord([Announcement.AwaitedTrial(build: onTrial, permanent: permanent.published)]))))
        #expect(machine.ledger.record.onTrial == [onTrial], "until it is tried again, it is still on trial")

        _ = machine.handle(.started(generation: first.number, substitutes: first.builds.substitutes, rewritten: []), at: MonotonicInstant(nanoseconds: 2))
        let served = machine.handle(.ready(generation: first.number, plugins: [permanent.published]), at: MonotonicInstant(nanoseconds: 3))
        let upgrade = try #require(plans(in: served).first, "an upgrade starts once the host serves: \(served)")
        #expect(upgrade.cause == .upgrade)
        #expect(upgrade.builds.excluded.isEmpty, "the build on trial is loaded again")
        #expect(machine.ledger.record.permanent.map(\.identity) == [permanent.identity])
    }

    @Test("the status says where each build that serves came from, as its generation loaded it: its file, a build held from before, or the record's copy")
    func whereABuildCameFrom() {
        var ledger = BuildLedger()
        let echo = PublishedPlugin(name: "Echo", file: "p/libEcho.so", version: "1.0.0", identity: identity(1), state: .running)
        let ticker = PublishedPlugin(name: "Ticker", file: "p/libTicker.so", version: "0.1.0", identity: identity(2), state: .running)
        let domain = PublishedPlugin(name: "Domain", file: "p/libDomain.so", version: "0.9.0", identity: identity(3), state: .running)
        var generation = Generation(number: 2, cause: .restore, startedAt: MonotonicInstant(nanoseconds: 1), life: .serving)
        generation.plugins = [echo, ticker, domain]
        generation.substitutes = [
            BuildSubstitute(name: "Ticker", file: ticker.file, identity: identity(2), path: "/proc/self/fd/9"),
            BuildSubstitute(name: "Domain", file: domain.file, identity: identity(3), path: "/proc/self/fd/10", fromCopy: true),
        ]
        ledger.handle(.speaks(generation))
        func origin(_ name: String) -> BuildOrigin? { ledger.statuses.first { $0.name == name }?.origin }
        #expect(origin("Echo") == .file)
        #expect(origin("Ticker") == .held)
        #expect(origin("Domain") == .record)
        // Ticker's file now holds a new build, not left out, which no generation loaded yet:
        // the build that serves still came from the held file.
        generation.conditions = [PluginCondition(name: "Ticker", state: .serving, file: ticker.file, version: ticker.version, build: ticker.identity)]
        ledger.handle(.speaks(generation))
        #expect(origin("Ticker") == .held)
    }

    @Test("the record keeps the newest few permanent builds of each plugin; the newest is held, to run in place of a file it does not run")
    func permanentBuilds() {
        var ledger = BuildLedger()
        ledger.handle(.recorded(BuildRecord(permanent: (1...5).map { BuildRecord.Build(name: "Ticker", file: "f", version: "0.\($0)", identity: identity(UInt64($0))) })))
        #expect(ledger.record.permanent.map(\.version) == ["0.3", "0.4", "0.5"])
        #expect(ledger["Ticker"]?.held?.version == "0.5", "the newest is held, to run in place of a file left out")
    }

    @Test("a start forgets a build left out whose file changed, unless the record keeps a copy of it; a build on trial whose file changed is not tried again")
    func forgettingChangedFiles() {
        let crashed = BuildRecord.LeftOut(name: "Ticker", file: "/p/libTicker.so", version: "0.2.0", identity: identity(2), reason: .recorded("crashed"))
        let replaced = BuildRecord.LeftOut(name: "Ticker", file: "/p/libTicker.so", version: "0.1.0", identity: identity(1), reason: .recorded("crashed"))
        let record = BuildRecord(
            leftOut: [replaced, crashed],
            permanent: [BuildRecord.Build(name: "Ticker", file: "/p/libTicker.so", version: "0.2.0", identity: identity(2), copy: identity(20))],
            onTrial: [BuildRecord.Build(name: "Echo", file: "/p/libEcho.so", version: "1.1.0", identity: identity(3))])
        // The directory now holds other builds of both plugins.
        let read = record.forgettingChangedFiles { _, _, _ in false }
        #expect(read.leftOut.map(\.version) == ["0.2.0"], "kept for its copy")
        #expect(read.leftOut.map(\.inDirectory) == [false], "and not named at start")
        #expect(read.onTrial.isEmpty)
        #expect(record.forgettingChangedFiles { _, _, _ in true }.leftOut.map(\.inDirectory) == [true, true])
    }
}
