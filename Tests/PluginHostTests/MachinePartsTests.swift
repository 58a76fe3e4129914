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
