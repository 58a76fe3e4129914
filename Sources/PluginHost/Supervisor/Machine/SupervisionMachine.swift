/// Every decision of the supervisor, as one pure state machine: ``handle(_:at:)`` takes an
/// event and the time it happened, moves the state on, and returns the actions that carry
/// the decision out. It makes no system call, reads no clock and opens no file: time comes
/// with each event, a deadline passing is the ``SupervisionEvent/tick`` that finds it due,
/// and what a worker did, or what the files say, comes as a fact its driver gathered. So any
/// sequence of events can be replayed, and is, by the simulator of the tests.
///
/// ```
///  starting ──ready──▶ serving ──ends unexpectedly──▶ (backing off) ──▶ recovering ──ready──▶ serving
///                       │  ▲                                              │ fails: recover again, or end
///                       │  └──────────────────────────ready───────────────┘
///                       └─ files changed ──▶ upgrading (``Upgrade``: loading beside, handing over, taking over) ──ready──▶ serving
///                                             fails before the generation before stopped: serving, as it was
///                                             fails after: recovering with the builds before
///  SIGINT/SIGTERM in any state: stopping (``Stop``) ──every generation ended──▶ finished
/// ```
///
/// The host's state (``State``) names the generations that matter and their roles, and carries
/// what exists only in it: an upgrade's candidate, its phase and the trials a rollback ends;
/// a stop's signal and the status it ends with. It changes only through ``enter(_:)``. Each
/// generation's own life is one ``Generation/Life`` value. The rest is owned by parts, each a
/// concern of its own: the builds (``BuildLedger``), the restarts (``Restarts``), what
/// operators wait for (``OperatorRequests``), what operators may ask about (``HostRecords``), what each
/// generation handed over (``HandOffs``), the rescans, drains and restores that upgrades wait
/// for (``UpgradesUnderWay``), the record's writes (``RecordWrites``), and what systemd is told
/// of the machine's own accord (``SystemdNotices``). Each keeps its state private; the builds,
/// the restarts, the operators' requests and the hand-offs are told what happened by one
/// `handle(_:)` each, which returns what follows, and the machine merges what they return into
/// its actions in order. Every switch is exhaustive.
struct SupervisionMachine: Sendable {
    /// What the operator asked of supervision.
    struct Configuration: Equatable, Sendable {
        /// When to restart, how often, how long to wait first.
        var restart = RestartPolicy()
        /// How long the workers may take to stop once asked (`--shutdown-timeout`), before
        /// the grace; `nil` for no limit.
        var stopLimit: Duration? = .seconds(10)
        /// How long a worker may stay stopped by a signal (SIGSTOP) before it counts as hung
        /// (`--timeout`); `nil` for no limit.
        var suspensionLimit: Duration? = .seconds(30)
        /// Whether the plugin directories are watched (`--watch`): the host serves even with
        /// no service running.
        var watching = false
        /// Whether a plugin that fails at the first start is left out while the others run
        /// (`--keep-going`).
        var keepingGoing = false
        /// How long systemd's watchdog waits between pings (`WatchdogSec=`); `nil` without one.
        var watchdog: Duration?
        /// How long a watched directory must be quiet before the serving worker rescans it,
        /// so that a file being copied in is complete.
        var rescanQuiet: Duration = .milliseconds(200)
        /// How long after a stop signal the same signal counts as the same request: a repeat
        /// that comes later is a deliberate one, which ends the host at once.
        var repeatedSignalWindow: Duration = .seconds(1)
        /// How long to wait for a worker that was sent SIGKILL to be reaped, while the host
        /// stops, before ending without it.
        var reapGrace: Duration = .seconds(1)
        /// What the driver may spend once the host ends (``SupervisionAction/exit(_:_:)``).
        var ending = EndingBudget()
        /// How long the builds an upgrade brings in are on trial (`--trial`); `nil` for none.
        var trial: Duration? = .seconds(30)
        /// How long a write of the record may be unfinished before the host says its state
        /// directory does not answer.
        var recordStall: Duration = .seconds(5)
        /// Where the record is kept, as the words about it name it; `nil` without one.
        var record: String?
    }

    /// What the driver may spend on the host's end, after the machine decided it: each part
    /// bounded, so that the end comes in time whatever a worker or a reader does.
    struct EndingBudget: Equatable, Sendable {
        /// How long to wait for the workers still alive, sent SIGKILL, to be reaped.
        var reap: Duration = .seconds(2)
        /// How long to write the answers owed to control clients.
        var answers: Duration = .seconds(1)
        /// How long to wait for the write of the record under way, and for the last one.
        var record: Duration = .seconds(2)
        /// How long the host's own output may make no progress (a reader that stopped
        /// reading) before the rest is dropped.
        var outputStall: Duration = .seconds(2)
    }

    /// What the host is doing, as generations come and go.
    enum State: Equatable, Sendable {
        /// The first generation starts; its failure ends the host, as a batch run's would.
        case starting(Int)
        /// A generation serves: it is ready.
        case serving(Int)
        /// A generation started after a failure, or to bring back the builds that ran
        /// before a failed upgrade, gets ready.
        case recovering(Int)
        /// No generation runs: the next one, started for this cause, waits until then, so
        /// that a crash loop does not start generations back to back.
        case backingOff(until: MonotonicInstant, then: GenerationPlan.Cause)
        /// A candidate replaces the serving generation: it loads the plugin files beside it,
        /// then bootstraps beside it or once it has handed over.
        case upgrading(Upgrade)
        /// The host gives way to a new plugin-host binary (``HostUpgrade``): it checks it,
        /// starts it, its generation serves beside the new host's and then drains, and it
        /// keeps what it needs to serve again until the new host's trial passed.
        case upgradingHost(HostUpgrade)
        /// The host stops: every generation was asked to.
        case stopping(Stop)
        case finished(ExitStatus, EndReason)

        /// The state as operators read it.
        var hostState: HostState {
            switch self {
            case .starting: .starting
            case .serving: .serving
            case .recovering: .recovering
            case .backingOff: .backingOff
            case .upgrading(let upgrade): upgrade.hostState
            case .upgradingHost: .upgradingHost
            case .stopping: .stopping
            case .finished: .finished
            }
        }
    }

    let configuration: Configuration
    /// Changed only by ``enter(_:)``.
    private(set) var state: State
    /// The generations whose worker lives, and those that ended but the state still names.
    var generations = Generations()
    /// What runs, what is held, what is left out, and the failures.
    var ledger = BuildLedger()
    /// The record's writes: what was asked to be kept last, and the writes under way.
    var recordWrites = RecordWrites(kept: BuildRecord(), changes: 0)
    /// When the generation that replaces a failed one starts, and whether the limit allows it.
    var restarts: Restarts
    /// What operators wait for, and who follows the host.
    var operators = OperatorRequests()
    /// What operators may ask about beyond the builds: when the host started, its warnings, the last reload and upgrade.
    var records: HostRecords
    /// What the machine tells systemd of its own accord.
    var notices: SystemdNotices
    /// An upgrade waiting for a drain, the rollbacks beside the serving generation, what a
    /// restore brings back.
    var upgrades = UpgradesUnderWay()
    /// What generations handed over, and who inherits it.
    var handOffs = HandOffs()
    /// On a new host, its taking over from the host before, until its trial passed.
    var takeOver: HostUpgrade?
    /// The event being handled: when it happened, and the actions decided so far.
    private var step: Step

    /// The time of the event being handled.
    var now: MonotonicInstant { step.at }

    /// The event being handled: its time, never earlier than an event before it, and the
    /// actions decided for it, in order.
    private struct Step: Sendable {
        var at: MonotonicInstant
        var actions: [SupervisionAction] = []
    }

    /// A machine whose first generation starts at `now`, and the actions that start it.
    /// - Parameter record: What the host proved before, as kept on disk: its builds left out
    ///   stay out of every generation, the first included; its builds on trial are tried
    ///   again once the host serves, its permanent build running in their place meanwhile.
    static func starting(_ configuration: Configuration, record: BuildRecord = BuildRecord(), at now: MonotonicInstant) -> (SupervisionMachine, [SupervisionAction]) {
        var machine = SupervisionMachine(configuration: configuration, now: now)
        machine.ledger.handle(.recorded(record))
        machine.recordWrites = RecordWrites(kept: machine.ledger.record, changes: machine.ledger.recordChanges)
        let leftOutHere = record.leftOut.filter(\.inDirectory)
        if !leftOutHere.isEmpty { machine.say(.leftOutByRecord(leftOutHere)) }
        let awaited = record.onTrial.compactMap { build -> Announcement.AwaitedTrial? in
            guard machine.ledger[build.name]?.awaitingTrial != nil else { return nil }
            return Announcement.AwaitedTrial(build: build, permanent: machine.ledger[build.name]?.held)
        }
        if !awaited.isEmpty { machine.say(.awaitingTrialByRecord(awaited)) }
        machine.enter(.starting(machine.startGeneration(.start)))
        let actions = machine.takeActions()
        return (machine, actions)
    }

    init(configuration: Configuration, now: MonotonicInstant) {
        self.configuration = configuration
        step = Step(at: now)
        records = HostRecords(startedAt: now)
        // Until the first generation is numbered.
        state = .starting(0)
        notices = SystemdNotices(watchdog: configuration.watchdog, startingAt: now)
        restarts = Restarts(configuration.restart)
    }

    /// Moves the machine on by `event`, which happened at `time`.
    ///
    /// - Returns: What the driver must do, in order.
    mutating func handle(_ event: SupervisionEvent, at time: MonotonicInstant) -> [SupervisionAction] {
        step.at = max(step.at, time)
        if case .finished = state { return [] }
        // A trial whose end has come is over before anything is judged by it.
        endDueTrials()
        switch event {
        case .signal(let signal, let source):
            if signal.asksToStop {
                stopRequested(by: signal, from: source)
            } else if signal == .upgradeHost, case .supervisor = source {
                hostUpgradeAsked(by: nil)
            } else if signal == .hangUp {
                let fromWorker = if case .worker = source { true } else { false }
                if operators.countsAsRequest(hangUpFromWorker: fromWorker, at: now, window: configuration.repeatedSignalWindow) {
                    reloadRequested(by: nil)
                }
            }
        case .directoryChanged:
            if configuration.watching { upgrades.directoriesChanged(at: now, quiet: configuration.rescanQuiet) }
        case .tick:
            fireDueDeadlines()
        case .started(let number, let substitutes, let rewritten):
            started(number, bringingBack: substitutes, rewritten: rewritten)
        case .couldNotStart(let number, let reason):
            couldNotStart(number, reason)
        case .holding(let held, let asked):
            ledger.handle(.holding(held, asked: asked))
            for pending in operators.takeRollbackHolds(answeredBy: asked) { rollbackHeld(pending.rollbacks, for: pending.client) }
        case .ready(let number, let plugins):
            ready(number, plugins: plugins)
        case .candidate(let number, let report, let plugins):
            guard generations.published(number, plugins) else { break }
            if takeOver != nil { judgeTakingOver(number, report) } else { judge(number, report) }
        case .upgradeRequested(let number, let plugins):
            upgradeRequested(by: number, plugins: plugins)
        case .notification(let number, let notification):
            passOn(notification, from: number)
        case .health(let number, let goodUntil):
            generations.checkedHealth(number, goodUntil: goodUntil)
        case .overran(let number, let overrun):
            guard let generation = generations[number], generation.isAlive else { break }
            kill(number, because: .overran(overrun), probing: false)
        case .suspended(let number, let process, let signal, let running):
            suspended(number, process: process, by: signal, running: running)
        case .resumed(let number, let process):
            resumed(number, process: process)
        case .handedOver(let number, let items):
            if generations[number] != nil { act(handOffs.handle(.handedOver(items, by: number))) }
        case .ended(let number, let evidence):
            ended(number, evidence)
        case .news(let number, let news):
            heard(news, from: number)
        case .control(let client, let request):
            answer(request, from: client)
        case .restartChecked(let client, let problems):
            restartChecked(for: client, problems: problems)
        case .clientLeft(let client):
            act(operators.handle(.left(client: client)))
        case .hostBinaryChecked(let problem):
            hostBinaryChecked(problem: problem)
        case .newHostStarted(let process):
            newHostStarted(process)
        case .newHostFailed(let why):
            newHostFailed(why)
        case .hostSaid(let word):
            if takeOver != nil { hostBeforeSaid(word) } else { newHostSaid(word) }
        case .hostBeforeEnded:
            hostBeforeEnded()
        case .recordKept(let number, let failure):
            for news in recordWrites.finished(number, failure: failure, at: now) { say(.record(news, kept: configuration.record)) }
        }
        forgetEndedGenerations()
        ledger.handle(.speaks(currentGeneration.flatMap { generations[$0] }))
        keepRecordIfChanged()
        tellOperators()
        return takeActions()
    }

    /// Asks the driver to keep the record on disk again when what it keeps changed, unless a
    /// write failed: the host then keeps no record.
    mutating func keepRecordIfChanged() {
        if let keep = recordWrites.keep({ ledger.record }, changes: ledger.recordChanges, at: now) { act(keep) }
    }

    /// The earliest instant at which a deadline falls due: the driver sends a
    /// ``SupervisionEvent/tick`` then, if nothing else happens first.
    var nextDeadline: MonotonicInstant? {
        var next = notices.nextPing ?? .distantFuture
        if let rescan = upgrades.nextRescan, case .serving = state { next = min(next, rescan) }
        if case .backingOff(let until, _) = state { next = min(next, until) }
        if let trialEnd = nextTrialEnd { next = min(next, trialEnd) }
        if let trialEnd = hostTrialEnd { next = min(next, trialEnd) }
        if let deadline = newHostStopDeadline { next = min(next, deadline) }
        if let stall = recordWrites.nextDeadline(limit: configuration.recordStall) { next = min(next, stall) }
        for generation in generations.all {
            switch generation.life {
            case .stopping(let deadline?): next = min(next, deadline)
            case .killed(_, let at, _, _): if case .stopping = state { next = min(next, at + configuration.reapGrace) }
            case .starting, .prepared, .proceeding, .serving, .stopping(deadline: nil), .ended: break
            }
            if let suspension = generation.suspension, let limit = configuration.suspensionLimit, generation.isAlive {
                next = min(next, suspension.since + limit)
            }
        }
        return next == .distantFuture ? nil : next
    }

    /// The generation that speaks for the host: whose notifications systemd hears and whose
    /// status the host's is.
    var currentGeneration: Int? {
        switch state {
        case .starting(let number), .serving(let number), .recovering(let number): number
        case .upgrading(let upgrade): upgrade.speaking
        case .upgradingHost(let upgrade): upgrade.servingBeside
        case .stopping(let stop): stop.current
        case .backingOff, .finished: nil
        }
    }

    /// The generations whose worker lives.
    var liveGenerations: [Generation] {
        generations.live
    }

    /// The host is in `next` from now on: every change of the state, and of what it carries,
    /// comes through here. A host that finished stays finished: nothing an event still does
    /// after the decision to end moves it on.
    mutating func enter(_ next: State) {
        if case .finished = state { return }
        state = next
    }

    mutating func takeActions() -> [SupervisionAction] {
        defer { step.actions = [] }
        return step.actions
    }

    // MARK: Acting

    mutating func act(_ action: SupervisionAction) {
        step.actions.append(action)
    }

    /// The actions a part of the machine decided, in its order.
    mutating func act(_ decided: [SupervisionAction]) {
        step.actions += decided
    }

    mutating func say(_ announcement: Announcement) {
        step.actions.append(.say(announcement))
    }

    mutating func notify(_ notice: HostNotice) {
        step.actions.append(.notify(notice))
    }

    /// `RELOADING=1`, now.
    var reloadingNow: HostNotice {
        .reloading(at: now)
    }

    /// Forks a generation for `cause`, with the builds it must leave out or load instead.
    ///
    /// - Returns: Its number.
    mutating func startGeneration(_ cause: GenerationPlan.Cause) -> Int {
        var plan = GenerationPlan()
        plan.number = generations.start(cause, at: now)
        plan.cause = cause
        plan.strictness = Strictness(for: cause, watching: configuration.watching, keepingGoing: configuration.keepingGoing)
        plan.builds = ledger.selection
        step.actions.append(.start(plan))
        // A generation that does not wait bootstraps at once: what the one it replaces handed
        // over goes with it. An upgrade's receives it once the generation before has stopped.
        if !plan.waitsBeforeBootstrap { handOver(to: plan.number) }
        return plan.number
    }

    /// Sends generation `number` what the generation it replaces handed over, if anything.
    mutating func handOver(to number: Int) {
        act(handOffs.handle(.bootstraps(number)))
    }

    /// Asks a generation to stop, by the deadline `--shutdown-timeout` and the grace allow.
    mutating func askToStop(_ number: Int, signal: Signal) {
        guard generations.askedToStop(number, by: configuration.stopLimit.map { now + $0 + OverrunPolicy.grace }) else { return }
        step.actions.append(.ask(generation: number, .stop(signal: signal)))
    }

    mutating func kill(_ number: Int, because reason: KillReason, probing: Bool) {
        // A generation that drains after serving spoke for the host as much as the current one:
        // only a candidate newer than it is "the new worker".
        guard generations.killed(number, because: reason, at: now, spokeForHost: number <= (currentGeneration ?? .max)) else { return }
        step.actions.append(.kill(generation: number, probing: probing))
    }

    /// Forgets the generations that ended and that the state no longer names.
    private mutating func forgetEndedGenerations() {
        let named: Set<Int> = switch state {
        case .starting(let number), .serving(let number), .recovering(let number): [number]
        case .upgrading(let upgrade): Set(upgrade.generations)
        case .upgradingHost(let upgrade): upgrade.servingBeside.map { [$0] } ?? []
        case .stopping(let stop): stop.current.map { [$0] } ?? []
        case .backingOff, .finished: []
        }
        generations.forgetEnded(except: named)
    }

    /// Whether a generation the host no longer speaks through still drains: one an upgrade
    /// bootstrapped beside. Another upgrade waits for it to end, so that at most two
    /// generations live.
    var hasDrainingGeneration: Bool {
        liveGenerations.contains { $0.number != currentGeneration }
    }

    /// Whether one generation is giving way to another.
    var isChangingHands: Bool {
        switch state {
        case .upgrading, .upgradingHost: true
        case .starting, .serving, .recovering, .backingOff, .stopping, .finished: false
        }
    }

    /// Whether the host runs as a service: with `--watch`, or with a plugin that runs one.
    func isServiceRun(_ generation: Generation) -> Bool {
        configuration.watching || generation.plugins.contains(where: \.providesService) || !generations.servicePlugins.isEmpty
    }

    // MARK: Deadlines

    private mutating func fireDueDeadlines() {
        if notices.pingIfDue(at: now, interval: configuration.watchdog), isAnsweringForTheHost { step.actions.append(.pingWatchdog) }
        if case .serving(let number) = state, upgrades.rescanIfDue(at: now) {
            step.actions.append(.ask(generation: number, .rescan))
        }
        if case .backingOff(let until, let cause) = state, now >= until {
            enter(.recovering(startGeneration(cause)))
        }
        for news in recordWrites.check(at: now, limit: configuration.recordStall) { say(.record(news, kept: configuration.record)) }
        for generation in liveGenerations {
            switch generation.life {
            case .stopping(let deadline?) where now >= deadline:
                let allowed = (configuration.stopLimit ?? .zero) + OverrunPolicy.grace
                kill(generation.number, because: .stopDeadline(allowed: allowed, suspendedBy: generation.suspension?.signal), probing: true)
                continue
            case .starting, .prepared, .proceeding, .serving, .stopping, .killed, .ended:
                break
            }
            if let suspension = generation.suspension, let limit = configuration.suspensionLimit, now - suspension.since >= limit,
                generation.isAlive {
                kill(generation.number, because: .stayedSuspended(suspension.signal, limit: limit), probing: false)
            }
        }
        endHostTrialIfDue()
        endWithoutOverdueWorkers()
        finishStopIfDone()
    }

    /// Whether the watchdog may be told the host is alive: between generations the
    /// supervisor answers for the host; a generation answers with its health checks.
    private var isAnsweringForTheHost: Bool {
        guard let current = currentGeneration, let generation = generations[current], generation.isLive else { return true }
        switch generation.health {
        case .unknown: return true
        case .good(let until): return until > now
        case .bad: return false
        }
    }

    // MARK: Status

    /// The host's status now, as far as the machine knows it.
    var status: HostStatus {
        var generationsNow: [GenerationStatus] = []
        for generation in liveGenerations {
            generationsNow.append(GenerationStatus(
                role: role(of: generation), number: generation.number, cause: generation.cause, startedAt: generation.startedAt,
                readyAt: generation.readyAt))
        }
        generationsNow.sort { ($0.number == currentGeneration ? 0 : 1, $0.number) < ($1.number == currentGeneration ? 0 : 1, $1.number) }
        let backingOff: MonotonicInstant? = if case .backingOff(let until, _) = state { until } else { nil }
        return HostStatus(
            state: state.hostState, startedAt: records.startedAt, now: now, backingOffUntil: backingOff, generations: generationsNow,
            plugins: ledger.statuses, restarts: restarts.status(at: now), lastReload: records.lastReload, lastUpgrade: records.lastUpgrade, lastHostUpgrade: records.lastHostUpgrade,
            reloadsApplied: records.reloadsApplied, reloadsRefused: records.reloadsRefused, warnings: records.warningsInForce,
            healthDurations: records.healthDurations, recordStalledSince: recordWrites.stalled)
    }

    /// What `generation` does for the host.
    private func role(of generation: Generation) -> GenerationRole {
        switch generation.life {
        case .killed: return .beingEnded
        case .stopping: return generation.number == currentGeneration && !isChangingHands ? .stopping : .draining
        case .prepared: return .waitingToTakeOver
        case .proceeding: return .takingOver
        case .serving: return .serving
        case .ended: return .ended
        case .starting:
            switch generation.cause {
            case .start: return .starting
            case .restart, .restore: return .recovering
            case .upgrade, .operatorRestart, .hostUpgrade: return .loadingBeside
            }
        }
    }
}
