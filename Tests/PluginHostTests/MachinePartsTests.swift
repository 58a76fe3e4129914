import Testing
@testable import PluginHost

/// The parts of the supervisor's machine that own their state, each alone: what it keeps and
/// what it returns, event by event, as docs/operations.md says.
@Suite("The machine's parts, each alone")
struct MachinePartsTests {
    /// What a part's call returns, read inside an expectation (which cannot call a mutating
    /// method itself).
    private func take<Value>(_ call: () -> Value) -> Value { call() }

    // MARK: Hand-offs

    @Test("a generation's hand-off goes once, to the next generation to bootstrap after it ended")
    func handOffGoesToTheNextToBootstrap() {
        var handOffs = HandOffs()
        handOffs.received(["Echo/item-0"], from: 1)
        #expect(take({ handOffs.ended(1, isReplaced: true) }) == [])
        #expect(take({ handOffs.give(to: 2) }) == [.say(.handingOver(items: ["Echo/item-0"], from: 1, to: 2)), .handOver(from: 1, to: 2)])
        // Given once: the next to bootstrap receives nothing of generation 1.
        #expect(take({ handOffs.give(to: 3) }) == [.handOver(from: nil, to: 3)])
    }

    @Test("a generation that ends with none to replace it leaves nothing to inherit: what it handed over is closed")
    func handOffOfAGenerationNotReplacedIsClosed() {
        var handOffs = HandOffs()
        handOffs.received(["Echo/item-0"], from: 2)
        #expect(take({ handOffs.ended(2, isReplaced: false) }) == [.discardHandOff(from: 2)])
        #expect(take({ handOffs.give(to: 3) }) == [.handOver(from: nil, to: 3)])
    }

    @Test("a newer heir closes the hand-off of the one before, which nobody took")
    func aNewerHeirClosesTheOlder() {
        var handOffs = HandOffs()
        handOffs.received(["a"], from: 1)
        _ = handOffs.ended(1, isReplaced: true)
        handOffs.received(["b"], from: 2)
        #expect(take({ handOffs.ended(2, isReplaced: true) }) == [.discardHandOff(from: 1)])
        #expect(take({ handOffs.give(to: 3) }) == [.say(.handingOver(items: ["b"], from: 2, to: 3)), .handOver(from: 2, to: 3)])
    }

    @Test("a generation that ends unreplaced while it is the heir keeps its hand-off for the next to bootstrap")
    func theHeirKeepsItsHandOff() {
        var handOffs = HandOffs()
        handOffs.received(["a"], from: 1)
        _ = handOffs.ended(1, isReplaced: true)
        #expect(take({ handOffs.ended(1, isReplaced: false) }) == [])
        #expect(take({ handOffs.give(to: 2) }).contains(.handOver(from: 1, to: 2)))
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

    @Test("reloads asked meanwhile are one reload: it begins when none is under way, and answers every client that asked")
    func reloadsCoalesce() {
        var operators = OperatorRequests()
        operators.requestReload(by: 1)
        operators.requestReload(by: nil)
        operators.requestReload(by: 2)
        #expect(take({ operators.beginWaitingReload(on: 5) }))
        operators.requestReload(by: 3)
        #expect(!take({ operators.beginWaitingReload(on: 5) }), "one reload at a time")
        #expect(take({ operators.endReload(on: 4) }) == nil)
        #expect(take({ operators.endReload(on: 5) }) == [1, 2])
        #expect(take({ operators.beginWaitingReload(on: 5) }))
        #expect(take({ operators.endReload(on: 5) }) == [3])
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

    @Test("when the host ends every client still owed an answer is taken once; a client that left is owed nothing")
    func everyClientIsAnsweredOnce() {
        var operators = OperatorRequests()
        operators.awaitStop(for: 1)
        operators.requestReload(by: 2)
        operators.awaitRestart(of: 7, for: 3)
        operators.awaitCheck(ofRestart: ["Ticker"], for: 4)
        operators.awaitRestart(of: 7, for: 5)
        operators.left(5)
        let owed = operators.takeAll()
        #expect(owed.stops == [1])
        #expect(Set(owed.others) == [2, 3, 4])
        let again = operators.takeAll()
        #expect(again.stops.isEmpty && again.others.isEmpty)
    }
}
