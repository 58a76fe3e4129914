import Testing
@testable import PluginHost

/// The parts of the supervisor's machine that own their state, each alone: what it keeps and
/// what it returns, event by event, as docs/operations.md says.
@Suite("The machine's parts, each alone")
struct MachinePartsTests {
    // MARK: Hand-offs

    @Test("a generation's hand-off goes once, to the next generation to bootstrap after it ended")
    func handOffGoesToTheNextToBootstrap() {
        var handOffs = HandOffs()
        #expect(take({ handOffs.handle(.handedOver(["Echo/item-0"], by: 1)) }) == [])
        #expect(take({ handOffs.handle(.ended(1, replaced: true)) }) == [])
        #expect(take({ handOffs.handle(.bootstraps(2)) }) == [.say(.handingOver(items: ["Echo/item-0"], from: 1, to: 2)), .handOver(from: 1, to: 2)])
        // Given once: the next to bootstrap receives nothing of generation 1.
        #expect(take({ handOffs.handle(.bootstraps(3)) }) == [.handOver(from: nil, to: 3)])
    }

    @Test("a generation that ends with none to replace it leaves nothing to inherit: what it handed over is closed")
    func handOffOfAGenerationNotReplacedIsClosed() {
        var handOffs = HandOffs()
        #expect(take({ handOffs.handle(.handedOver(["Echo/item-0"], by: 2)) }) == [])
        #expect(take({ handOffs.handle(.ended(2, replaced: false)) }) == [.discardHandOff(from: 2)])
        #expect(take({ handOffs.handle(.bootstraps(3)) }) == [.handOver(from: nil, to: 3)])
    }

    @Test("a newer heir closes the hand-off of the one before, which nobody took")
    func aNewerHeirClosesTheOlder() {
        var handOffs = HandOffs()
        #expect(take({ handOffs.handle(.handedOver(["a"], by: 1)) }) == [])
        _ = handOffs.handle(.ended(1, replaced: true))
        #expect(take({ handOffs.handle(.handedOver(["b"], by: 2)) }) == [])
        #expect(take({ handOffs.handle(.ended(2, replaced: true)) }) == [.discardHandOff(from: 1)])
        #expect(take({ handOffs.handle(.bootstraps(3)) }) == [.say(.handingOver(items: ["b"], from: 2, to: 3)), .handOver(from: 2, to: 3)])
    }

    @Test("a generation that ends unreplaced while it is the heir keeps its hand-off for the next to bootstrap")
    func theHeirKeepsItsHandOff() {
        var handOffs = HandOffs()
        #expect(take({ handOffs.handle(.handedOver(["a"], by: 1)) }) == [])
        _ = handOffs.handle(.ended(1, replaced: true))
        #expect(take({ handOffs.handle(.ended(1, replaced: false)) }) == [])
        #expect(take({ handOffs.handle(.bootstraps(2)) }).contains(.handOver(from: 1, to: 2)))
    }

    // MARK: Upgrades under way

    @Test("an upgrade asked while a generation drains waits for its end, then begins once")
    func upgradeWaitsForTheDrain() {
        var upgrades = UpgradesUnderWay()
        #expect(!take({ upgrades.asked(whileDraining: true) }))
        #expect(!take({ upgrades.generationEnded(stillDraining: true) }))
        #expect(take({ upgrades.generationEnded(stillDraining: false) }))
        #expect(!take({ upgrades.generationEnded(stillDraining: false) }))
        #expect(take({ upgrades.asked(whileDraining: false) }))
    }

    @Test("a rescan is due once the directories have been quiet, and asked once")
    func rescanWaitsForQuiet() {
        var upgrades = UpgradesUnderWay()
        upgrades.directoriesChanged(at: MonotonicInstant(nanoseconds: 0), quiet: .milliseconds(200))
        upgrades.directoriesChanged(at: MonotonicInstant(nanoseconds: 100_000_000), quiet: .milliseconds(200))
        #expect(!take({ upgrades.rescanIfDue(at: MonotonicInstant(nanoseconds: 200_000_000)) }), "a change restarts the quiet")
        #expect(take({ upgrades.rescanIfDue(at: MonotonicInstant(nanoseconds: 300_000_000)) }))
        #expect(!take({ upgrades.rescanIfDue(at: MonotonicInstant(nanoseconds: 400_000_000)) }))
    }

    @Test("a restore's plugins are taken once")
    func restoresAreTakenOnce() {
        var upgrades = UpgradesUnderWay()
        upgrades.restore(["Ticker"])
        #expect(take({ upgrades.restoringStarted() }) == ["Ticker"])
        #expect(take({ upgrades.restoringStarted() }) == [])
    }

    // MARK: An upgrade

    @Test("an upgrade's candidate loads beside the serving generation, which speaks for the host until the candidate takes over")
    func upgradeSpeaksThroughTheGenerationBefore() {
        let old = PublishedPlugin(name: "Ticker", file: "plugins/libTicker.so", version: "0.1.0", identity: nil, state: .running)
        var upgrade = Upgrade(candidate: 4, beside: 3)
        #expect(upgrade.speaking == 3 && upgrade.servingBeside == 3 && upgrade.generations == [3, 4])
        #expect(upgrade.hostState == .upgrading)
        upgrade.phase = .handingOver(old: 3)
        #expect(upgrade.speaking == 3 && upgrade.servingBeside == nil && upgrade.generations == [3, 4])
        #expect(upgrade.hostState == .handingOver)
        upgrade.phase = .takingOver(replacing: [old])
        #expect(upgrade.speaking == 4 && upgrade.generations == [4])
        #expect(upgrade.hostState == .takingOver)
    }

    @Test("a rollback's upgrade carries the trials it ends; another upgrade carries none")
    func rollbackCarriesItsTrials() {
        let old = PublishedPlugin(name: "Ticker", file: "plugins/libTicker.so", version: "0.1.0", identity: nil, state: .running)
        let new = PublishedPlugin(name: "Ticker", file: "plugins/libTicker.so", version: "0.2.0", identity: nil, state: .running)
        let trial = BuildLedger.Trial(build: new, replaced: old, until: MonotonicInstant(nanoseconds: 0))
        #expect(Upgrade(candidate: 4, beside: 3, rollingBack: [trial]).rollingBack == [trial])
        #expect(Upgrade(candidate: 4, beside: 3).rollingBack == nil)
        #expect(!Upgrade(candidate: 4, beside: 3).askedMeanwhile, "a new upgrade loads the files as they are: no request is pending")
    }

    // MARK: Generations

    @Test("generations are numbered as they start, from 1, and a ready word makes a starting one serve")
    func generationsServeOnceReady() {
        var generations = Generations()
        let first = generations.start(.start, at: MonotonicInstant(nanoseconds: 0))
        let second = generations.start(.upgrade, at: MonotonicInstant(nanoseconds: 5))
        #expect((first, second) == (1, 2))
        let ready = generations.ready(1, plugins: [], at: MonotonicInstant(nanoseconds: 9))
        #expect(ready?.life == .serving && ready?.readyAt == MonotonicInstant(nanoseconds: 9))
        #expect(generations.live.map(\.number) == [1, 2])
    }

    @Test("a life moves down its list, never up: a generation asked to stop, or ended by the machine, does not serve again by a late word")
    func aLifeNeverMovesUp() {
        var generations = Generations()
        let stopping = generations.start(.start, at: MonotonicInstant(nanoseconds: 0))
        let killed = generations.start(.upgrade, at: MonotonicInstant(nanoseconds: 0))
        #expect(take({ generations.askedToStop(stopping, by: nil) }))
        #expect(take({ generations.ready(stopping, plugins: [], at: MonotonicInstant(nanoseconds: 1)) }) == nil)
        #expect(generations[stopping]?.life == .stopping(deadline: nil))
        #expect(take({ generations.killed(killed, because: .notNeeded, at: MonotonicInstant(nanoseconds: 1), spokeForHost: false) }))
        #expect(take({ generations.ready(killed, plugins: [], at: MonotonicInstant(nanoseconds: 2)) }) == nil)
        #expect(!take({ generations.askedToStop(killed, by: nil) }), "a generation the machine ended is not asked to stop")
        generations.proceeds(killed)
        #expect(generations[killed]?.isAlive == false, "nor told to bootstrap back to life")
    }

    @Test("an ended generation hears nothing more, and is forgotten once the state no longer names it")
    func endedGenerationsAreForgotten() {
        var generations = Generations()
        let number = generations.start(.start, at: MonotonicInstant(nanoseconds: 0))
        let ending = WorkerEnding(status: .success, account: nil, culprits: [], summary: .asMeant)
        #expect(take({ generations.ended(number, ending, plugins: [], in: .running, failedPlugin: nil) }) != nil)
        #expect(take({ generations.ended(number, ending, plugins: [], in: .running, failedPlugin: nil) }) == nil, "it ends once")
        #expect(!take({ generations.suspended(number, by: .stop, at: MonotonicInstant(nanoseconds: 1)) }))
        generations.forgetEnded(except: [number])
        #expect(generations[number] != nil, "the state still names it")
        generations.forgetEnded(except: [])
        #expect(generations[number] == nil)
    }

    @Test("a candidate told to give up is judged by the plugin the machine blamed, not the first failure its worker saw")
    func abandonedCandidateIsJudgedByTheBlame() {
        var generations = Generations()
        let candidate = generations.start(.upgrade, at: MonotonicInstant(nanoseconds: 0))
        generations.abandon(candidate, Generation.Abandonment(blamed: PluginNumber(2), bootstrapped: false))
        let ending = WorkerEnding(status: .failure, account: nil, culprits: [], summary: .asMeant)
        let ended = generations.ended(candidate, ending, plugins: [], in: .startUp, failedPlugin: PluginNumber(0))
        #expect(ended?.failedPlugin == PluginNumber(2))
    }

    @Test("a worker stopped by a signal is news once, and its resumption says since when")
    func suspensionsAreNewsOnce() {
        var generations = Generations()
        let number = generations.start(.start, at: MonotonicInstant(nanoseconds: 0))
        #expect(take({ generations.suspended(number, by: .stop, at: MonotonicInstant(nanoseconds: 3)) }))
        #expect(!take({ generations.suspended(number, by: .stop, at: MonotonicInstant(nanoseconds: 4)) }))
        #expect(take({ generations.resumed(number) })?.since == MonotonicInstant(nanoseconds: 3))
        #expect(take({ generations.resumed(number) }) == nil)
    }

    // MARK: Operator requests

    @Test("reloads asked meanwhile are one reload: it begins when a generation serves and none is under way, and its outcome answers every client that asked")
    func reloadsCoalesce() {
        var operators = OperatorRequests()
        #expect(take({ operators.handle(.reloadAsked(by: 1, serving: nil)) }).isEmpty, "no generation serves to ask")
        _ = operators.handle(.reloadAsked(by: nil, serving: nil))
        #expect(take({ operators.handle(.reloadAsked(by: 2, serving: 5)) }) == [.ask(generation: 5, .reload)])
        #expect(take({ operators.handle(.reloadAsked(by: 3, serving: 5)) }).isEmpty, "one reload at a time")
        #expect(take({ operators.handle(.reloaded(4, applied: true, reasons: [], serving: 5)) }).isEmpty, "generation 4 was asked no reload")
        #expect(take({ operators.handle(.reloaded(5, applied: true, reasons: [], serving: 5)) }) == [
            .answer(client: 1, .reload(applied: true, reasons: [])), .answer(client: 2, .reload(applied: true, reasons: [])),
            .ask(generation: 5, .reload),
        ])
        #expect(take({ operators.handle(.reloaded(5, applied: false, reasons: ["bad"], serving: 5)) }) == [
            .answer(client: 3, .reload(applied: false, reasons: ["bad"])),
        ])
    }

    @Test("a reload under way on a generation that ends answers its clients, and the one that waits begins on the generation that serves")
    func aReloadEndsWithItsGeneration() {
        var operators = OperatorRequests()
        let ending = WorkerEnding(status: .crashed, account: nil, culprits: [], summary: .crashed(during: "the run phase", .segmentationFault))
        _ = operators.handle(.reloadAsked(by: 1, serving: 4))
        _ = operators.handle(.reloadAsked(by: 2, serving: 5))
        #expect(take({ operators.handle(.ended(4, ending, serving: 5)) }) == [
            .answer(client: 1, .reloadEnded(generation: 4, ending)), .ask(generation: 5, .reload),
        ])
        #expect(take({ operators.handle(.ended(5, ending, serving: 5)) }) == [.answer(client: 2, .reloadEnded(generation: 5, ending))],
            "the generation that ended is not asked again")
    }

    @Test("a SIGHUP the supervisor and its worker both got within the window is one request; the same sender's again, or one after the window, is another")
    func hangUpCopiesAreOneRequest() {
        var operators = OperatorRequests()
        let start = MonotonicInstant(nanoseconds: 1_000_000_000)
        func counts(fromWorker: Bool, after: Duration) -> Bool {
            operators.countsAsRequest(hangUpFromWorker: fromWorker, at: start + after, window: .seconds(1))
        }
        #expect(counts(fromWorker: false, after: .zero))
        #expect(!counts(fromWorker: true, after: .milliseconds(10)), "the worker's copy of the same signal")
        #expect(counts(fromWorker: false, after: .milliseconds(20)), "the supervisor's own, again")
        #expect(counts(fromWorker: true, after: .seconds(5)), "past the window")
    }

    @Test("when the host ends every client still owed an answer is answered once, a stop with the status; a client that left is owed nothing")
    func everyClientIsAnsweredOnce() {
        var operators = OperatorRequests()
        let status = ExitStatus.failure
        _ = operators.handle(.stopAsked(client: 1))
        _ = operators.handle(.reloadAsked(by: 2, serving: nil))
        _ = operators.handle(.restartStarted(generation: 7, client: 3))
        _ = operators.handle(.restartAwaitsCheck(names: ["Ticker"], client: 4))
        _ = operators.handle(.restartStarted(generation: 7, client: 5))
        _ = operators.handle(.left(client: 5))
        #expect(take({ operators.handle(.hostEnded(status)) }) == [
            .answer(client: 1, .stopped(status)), .answer(client: 2, .refused(.hostEnded(status))),
            .answer(client: 3, .refused(.hostEnded(status))), .answer(client: 4, .refused(.hostEnded(status))),
        ])
        #expect(take({ operators.handle(.hostEnded(status)) }).isEmpty)
    }

    @Test("a restart's outcome answers every client waiting for that generation, once")
    func aRestartIsAnsweredOnce() {
        var operators = OperatorRequests()
        _ = operators.handle(.restartStarted(generation: 7, client: 1))
        _ = operators.handle(.restartStarted(generation: 8, client: 2))
        _ = operators.handle(.restartStarted(generation: 7, client: 3))
        #expect(take({ operators.handle(.restartEnded(generation: 7, .serves(generation: 7))) }) == [
            .answer(client: 1, .restart(.serves(generation: 7))), .answer(client: 3, .restart(.serves(generation: 7))),
        ])
        #expect(take({ operators.handle(.restartEnded(generation: 7, .serves(generation: 7))) }).isEmpty)
    }

    @Test("a client that waits for the host to serve is answered the status once it does, once; at the host's end, refused; gone, owed nothing")
    func waitersAreAnsweredOnce() {
        var operators = OperatorRequests()
        let status = HostStatus.example
        _ = operators.handle(.waits(client: 1))
        _ = operators.handle(.waits(client: 2))
        _ = operators.handle(.left(client: 2))
        #expect(operators.hasWaiters)
        #expect(take({ operators.handle(.servesSteadily(status)) }) == [.answer(client: 1, .status(status))])
        #expect(!operators.hasWaiters)
        #expect(take({ operators.handle(.servesSteadily(status)) }).isEmpty)
        _ = operators.handle(.waits(client: 3))
        #expect(take({ operators.handle(.hostEnded(.failure)) }) == [.answer(client: 3, .refused(.hostEnded(.failure)))])
    }

    @Test("a follower is shown the status first, then each change of it, with the change of state; the time alone moving is no change")
    func followersSeeChanges() {
        var operators = OperatorRequests()
        var status = HostStatus.example
        status.now = Self.at(1)
        #expect(take({ operators.handle(.follows(client: 1, status: status)) }) == [.answer(client: 1, .change("following", status))])
        status.now = Self.at(2)
        #expect(take({ operators.handle(.statusIs(status, at: Self.at(2))) }).isEmpty)
        status.state = .upgrading
        #expect(take({ operators.handle(.statusIs(status, at: Self.at(3))) }).map { if case .answer(_, .change(let what, _)) = $0 { what } else { "" } }
            == ["serving -> upgrading"])
    }

    // MARK: Restarts

    /// When the restart after a failure at `instant` starts, or `nil` when the limit allows none.
    private func restartAfterFailure(of restarts: inout Restarts, at instant: MonotonicInstant, healed: Bool = false, readyFor: Duration? = nil) -> Duration? {
        guard case .restart(let start, _)? = restarts.handle(.failed(healed: healed, readyFor: readyFor), at: instant).first else { return nil }
        return start - instant
    }

    private static func at(_ milliseconds: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: milliseconds * 1_000_000) }

    @Test("a failure that leaving out heals restarts at once, every time: not in a row, not against the limit, counted as healed")
    func healedRestartsAreAtOnce() {
        var restarts = Restarts(RestartPolicy(limit: 1, window: .seconds(60), delay: .milliseconds(100)))
        for second in 1...3 {
            #expect(restartAfterFailure(of: &restarts, at: Self.at(Int64(second) * 1000), healed: true) == .zero)
        }
        let status = restarts.status(at: Self.at(3000))
        #expect(status.total == 3 && status.healed == 3 && status.inARow == 0 && status.used == 0)
    }

    @Test("a loop that leaving out does not break waits twice as long at each restart in a row, up to --restart-max-delay")
    func unhealedRestartsBackOff() {
        var restarts = Restarts(RestartPolicy(limit: 100, window: .seconds(60), delay: .milliseconds(100), maximumDelay: .milliseconds(500)))
        let waits = (0..<6).map { restartAfterFailure(of: &restarts, at: Self.at(Int64($0) * 1000)) }
        #expect(waits == [.zero, .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500), .milliseconds(500)])
        #expect(restarts.status(at: Self.at(6000)).inARow == 6)
    }

    @Test("a generation ready for --restart-max-delay served steadily: the next restart is the first in a row again, at once")
    func steadyServiceEndsTheLoop() {
        var restarts = Restarts(RestartPolicy(limit: 100, window: .seconds(60), delay: .milliseconds(100), maximumDelay: .seconds(10)))
        _ = restartAfterFailure(of: &restarts, at: Self.at(0))
        #expect(restartAfterFailure(of: &restarts, at: Self.at(1000)) == .milliseconds(100))
        #expect(restartAfterFailure(of: &restarts, at: Self.at(12_000), readyFor: .milliseconds(9999)) == .milliseconds(200), "not quite steady")
        #expect(restartAfterFailure(of: &restarts, at: Self.at(30_000), readyFor: .seconds(10)) == .zero)
        #expect(restarts.status(at: Self.at(30_000)).inARow == 1)
    }

    @Test("the limit counts the restarts leaving out did not heal within the window that ends when the next would start")
    func theLimitCountsTheWindow() {
        var restarts = Restarts(RestartPolicy(limit: 2, window: .seconds(10), delay: .milliseconds(100)))
        _ = restartAfterFailure(of: &restarts, at: Self.at(0))
        _ = restartAfterFailure(of: &restarts, at: Self.at(1000))
        #expect(take({ restarts.handle(.failed(healed: false, readyFor: nil), at: Self.at(2000)) }) == [.limitReached(recent: 2)])
        // The first left the window that ends when the next one would start.
        #expect(restartAfterFailure(of: &restarts, at: Self.at(9850)) == .milliseconds(200))
    }

    @Test("an operator's restart starts the waiting one at once: the window counts it from then, not from its backoff")
    func anOperatorsRestartCountsFromWhenItStarts() {
        let policy = RestartPolicy(limit: 1, window: .seconds(1), delay: .milliseconds(100))
        func thirdFailure(startedByOperator: Bool) -> Duration? {
            var restarts = Restarts(policy)
            _ = restartAfterFailure(of: &restarts, at: Self.at(0))
            _ = restartAfterFailure(of: &restarts, at: Self.at(1100))
            // That restart waits 100 ms, until 1.2 s; an operator starts it at 1.1 s.
            if startedByOperator { #expect(take({ restarts.handle(.startedByOperator, at: Self.at(1100)) }) == []) }
            // The next waits 200 ms, until 2.15 s: 1.05 s after the operator's, 0.95 s after the backoff's.
            return restartAfterFailure(of: &restarts, at: Self.at(1950))
        }
        #expect(thirdFailure(startedByOperator: true) == .milliseconds(200))
        #expect(thirdFailure(startedByOperator: false) == nil, "within the window of the restart at 1.2 s, past the limit")
    }

    // MARK: The record's writes

    @Test("a write of the record is asked for when what it keeps changed, not when its count of changes moved alone")
    func aWriteIsAskedForOnlyWhenTheRecordChanged() {
        var writes = RecordWrites(kept: BuildRecord(), changes: 0)
        let changed = BuildRecord(leftOut: [], permanent: [], onTrial: [])
        #expect(take({ writes.keep({ changed }, changes: 1, at: Self.at(0)) }) == nil, "the same record")
        var record = BuildRecord()
        record.leftOut = [BuildRecord.LeftOut(name: "Echo", file: "plugins/libEcho.so", version: "1.0.0",
                                             identity: FileIdentity(device: 1, inode: 2, size: 3, modificationNanoseconds: 4, changeNanoseconds: 4), reason: .rolledBackByOperator)]
        #expect(take({ writes.keep({ record }, changes: 2, at: Self.at(0)) }) == .keepRecord(record, number: 1))
        #expect(take({ writes.keep({ record }, changes: 2, at: Self.at(0)) }) == nil, "no change since")
    }

    @Test("writes unfinished past the limit are said to stall once, and written again once every one finished")
    func stalledWritesAreSaidOnce() {
        var writes = RecordWrites(kept: BuildRecord(), changes: 0)
        var record = BuildRecord()
        for number in 1...2 {
            record.leftOut = [BuildRecord.LeftOut(name: "Echo", file: "plugins/libEcho.so", version: "1.0.\(number)",
                                                 identity: FileIdentity(device: 1, inode: UInt64(number), size: 3, modificationNanoseconds: 4, changeNanoseconds: 4), reason: .rolledBackByOperator)]
            _ = writes.keep({ record }, changes: number, at: Self.at(Int64(number) * 1000))
        }
        #expect(writes.nextDeadline(limit: .seconds(5)) == Self.at(6000))
        #expect(take({ writes.check(at: Self.at(5999), limit: .seconds(5)) }) == [])
        #expect(take({ writes.check(at: Self.at(6000), limit: .seconds(5)) }) == [.stalled(longerThan: .seconds(5))])
        #expect(take({ writes.check(at: Self.at(9000), limit: .seconds(5)) }) == [], "said once")
        #expect(writes.nextDeadline(limit: .seconds(5)) == nil)
        #expect(take({ writes.finished(1, failure: nil, at: Self.at(9000)) }) == [], "write 2 is unfinished")
        #expect(take({ writes.finished(2, failure: nil, at: Self.at(10_000)) }) == [.writtenAgain(after: .seconds(9))])
        #expect(writes.stalled == nil)
    }

    @Test("a write that failed is said once, and no write is asked for after it")
    func aFailedWriteEndsTheRecord() {
        var writes = RecordWrites(kept: BuildRecord(), changes: 0)
        var record = BuildRecord()
        record.onTrial = [BuildRecord.Build(name: "Echo", file: "plugins/libEcho.so", version: "1.0.1",
                                            identity: FileIdentity(device: 1, inode: 2, size: 3, modificationNanoseconds: 4, changeNanoseconds: 4), copy: nil, since: nil)]
        _ = writes.keep({ record }, changes: 1, at: Self.at(0))
        #expect(take({ writes.finished(1, failure: "read-only file system", at: Self.at(1)) }) == [.unwritable("read-only file system")])
        record.onTrial = []
        #expect(take({ writes.keep({ record }, changes: 2, at: Self.at(2)) }) == nil)
        #expect(writes.unwritable)
    }

    // MARK: What operators may ask about

    @Test("a warning is said when it first applies, not again while it holds; a generation that serves in place of another brings its own")
    func warningsAreSaidOnce() {
        var records = HostRecords(startedAt: MonotonicInstant(nanoseconds: 0))
        #expect(take({ records.warn(about: "Ticker", ["Ticker: interval changed; it applies at the next start"]) }) == ["Ticker: interval changed; it applies at the next start"])
        #expect(take({ records.warn(about: "Ticker", ["Ticker: interval changed; it applies at the next start"]) }) == [])
        #expect(take({ records.takeWarnings(of: ["Echo": ["Echo: port changed"]]) }) == ["Echo: port changed"])
        #expect(records.warningsInForce == ["Echo: port changed"], "the warnings of the generation before ended with it")
    }

    @Test("reloads are counted applied or refused, the last one kept; a restore's builds are said of the upgrade that ended last")
    func reloadsAndUpgradesAreRecorded() {
        var records = HostRecords(startedAt: MonotonicInstant(nanoseconds: 0))
        records.reloaded(at: Self.at(1), applied: true, reasons: [])
        records.reloaded(at: Self.at(2), applied: false, reasons: ["Echo refused"])
        #expect(records.reloadsApplied == 1 && records.reloadsRefused == 1)
        #expect(records.lastReload == ReloadRecord(at: Self.at(2), applied: false, reasons: ["Echo refused"]))
        records.upgradeEnded(at: Self.at(3), .failed(leftOut: []))
        #expect(records.lastUpgrade?.at == Self.at(3))
    }

    // MARK: What systemd is told

    @Test("the watchdog is pinged at once, then every half of its interval; the stop is told once")
    func systemdIsToldOnTime() {
        var notices = SystemdNotices(watchdog: .seconds(10), startingAt: Self.at(0))
        #expect(take({ notices.pingIfDue(at: Self.at(0), interval: .seconds(10)) }))
        #expect(!take({ notices.pingIfDue(at: Self.at(4999), interval: .seconds(10)) }))
        #expect(take({ notices.pingIfDue(at: Self.at(5000), interval: .seconds(10)) }))
        #expect(take({ notices.tellStopping() }))
        #expect(!take({ notices.tellStopping() }))
        var none = SystemdNotices(watchdog: nil, startingAt: Self.at(0))
        #expect(!take({ none.pingIfDue(at: Self.at(0), interval: nil) }) && none.nextPing == nil)
    }

    // MARK: A worker's end, judged

    @Test("a worker that did not stop by its stop's deadline blames the plugins still running; while a signal kept it stopped, only one in a short call")
    func aStopsDeadlineBlamesWhatRan() {
        let evidence = EndingEvidence(
            termination: .signalled(.kill), running: [RunningCode(plugin: PluginNumber(0), phase: .run), RunningCode(plugin: PluginNumber(1), phase: .shutdown)])
        let running = WorkerEnding(judging: evidence, killedBecause: .stopDeadline(allowed: .seconds(11), suspendedBy: nil))
        #expect(running.culprits == [PluginNumber(0), PluginNumber(1)])
        let stopped = WorkerEnding(judging: evidence, killedBecause: .stopDeadline(allowed: .seconds(11), suspendedBy: .stop))
        #expect(stopped.culprits == [PluginNumber(1)], "the service waiting for work could not stop; the hook in a short call is suspected")
        let idle = EndingEvidence(termination: .signalled(.kill), running: [RunningCode(plugin: PluginNumber(0), phase: .run)])
        let cleared = WorkerEnding(judging: idle, killedBecause: .stopDeadline(allowed: .seconds(11), suspendedBy: .stop))
        #expect(cleared.culprits.isEmpty && cleared.exoneration == .stoppedFromOutside)
    }
}
