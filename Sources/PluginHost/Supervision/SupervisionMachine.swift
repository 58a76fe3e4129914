/// Every decision of the supervisor, as one pure state machine: ``handle(_:at:)`` takes an
/// event and the time it happened, moves the state on, and returns the actions that carry
/// the decision out. It makes no system call, reads no clock and opens no file: time comes
/// with each event, a deadline passing is the ``SupervisionEvent/tick`` that finds it due,
/// and what a worker did comes as evidence its driver gathered. So any sequence of events can
/// be replayed, and is, by the simulator of the tests.
///
/// ```
///  starting ──ready──▶ serving ──ends unexpectedly──▶ (backing off) ──▶ recovering ──ready──▶ serving
///                       │  ▲                                              │ fails: recover again, or end
///                       │  └──────────────────────────ready───────────────┘
///                       └─ files changed ──▶ upgrading ──prepared──▶ handing over ──old ended──▶ taking over ──ready──▶ serving
///                                             fails: serving         candidate failed: recovering with the builds before
///  SIGINT/SIGTERM in any state: stopping ──every generation ended──▶ finished
/// ```
///
/// The host's state (``State``) names the generations that matter and their roles; each
/// generation's own life is one ``Generation/Life`` value. Every switch is exhaustive.
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
        /// A candidate loads changed plugins while the serving generation keeps serving.
        case upgrading(serving: Int, candidate: Int)
        /// The candidate has loaded; the generation before drains and shuts down.
        case handingOver(old: Int, candidate: Int)
        /// The candidate bootstraps and gets ready; these are the builds that ran before.
        case takingOver(Int, replacing: [PublishedPlugin])
        /// The host stops: every generation was asked to; the exit status is `current`'s.
        case stopping(current: Int?)
        case finished(ExitStatus, EndReason)

        /// `serving`, `backing off`: the state as operators read it.
        var name: String {
            switch self {
            case .starting: "starting"
            case .serving: "serving"
            case .recovering: "recovering"
            case .backingOff: "backing off"
            case .upgrading: "upgrading"
            case .handingOver: "handing over"
            case .takingOver: "taking over"
            case .stopping: "stopping"
            case .finished: "finished"
            }
        }
    }

    let configuration: Configuration
    private(set) var state: State
    /// The generations whose worker lives, and those that ended but the state still names.
    private(set) var generations: [Int: Generation] = [:]
    /// The builds no generation may load, until their files change or SIGHUP.
    private(set) var quarantine: [BuildSelection.Excluded] = []
    /// The builds the driver holds open, which a later generation can load again though
    /// their files were replaced.
    private(set) var held: [PublishedPlugin] = []
    private(set) var restarts = RestartHistory()
    /// Plugins seen to run a service, in any generation.
    private var servicePlugins: Set<String> = []
    /// The signal that stopped the host, and when it came.
    private var firstStop: (signal: Signal, at: MonotonicInstant)?
    /// Whether systemd was told the host stops.
    private var stoppingAnnounced = false
    /// SIGHUPs that came while no generation served, to pass on once one does.
    private var pendingReloads = 0
    /// When to ping systemd's watchdog next.
    private var nextPing: MonotonicInstant?
    /// When to tell the serving worker to rescan the plugin directories.
    private var rescanAt: MonotonicInstant?
    private var generationsStarted = 0
    /// The status the host ends with once every generation has stopped.
    private var finalStatus = ExitStatus.success
    /// When the host started.
    private(set) var startedAt: MonotonicInstant
    /// The warnings in force, by what they are about; each was said when it first applied.
    private(set) var warnings: [String: [String]] = [:]
    /// The failures blamed on each plugin: how many, and the last.
    private(set) var failures: [String: (count: Int, last: FailureRecord)] = [:]
    private(set) var lastReload: ReloadRecord?
    private(set) var lastUpgrade: UpgradeRecord?
    private(set) var reloadsApplied = 0
    private(set) var reloadsRefused = 0
    /// How long each plugin took to answer its last health check, in seconds.
    private(set) var healthDurations: [String: Double] = [:]
    /// The plugin conditions the generation that spoke for the host last told.
    private(set) var lastConditions: [PluginCondition] = []
    /// Control clients waiting for a reload's outcome, for a restart's (and the generation
    /// that answers it), for the host's end; and those that follow its changes.
    private var reloadClients: [Int] = []
    /// The generation asked to reload that has not told the outcome yet.
    private var reloading: Int?
    private var restartClients: [(client: Int, generation: Int)] = []
    private var stopClients: [Int] = []
    private var followers: [Int] = []
    /// What followers were last shown, to show them only changes.
    private var shownToFollowers: HostStatus?
    /// The time of the event being handled.
    private var now: MonotonicInstant
    /// The actions of the event being handled, in order.
    private var actions: [SupervisionAction] = []

    /// A machine whose first generation starts at `now`, and the actions that start it.
    static func starting(_ configuration: Configuration, at now: MonotonicInstant) -> (SupervisionMachine, [SupervisionAction]) {
        var machine = SupervisionMachine(configuration: configuration, now: now)
        machine.state = .starting(machine.startGeneration(.start))
        let actions = machine.takeActions()
        return (machine, actions)
    }

    private init(configuration: Configuration, now: MonotonicInstant) {
        self.configuration = configuration
        self.now = now
        startedAt = now
        state = .stopping(current: nil)
        nextPing = configuration.watchdog.map { _ in now }
    }

    /// Moves the machine on by `event`, which happened at `time`.
    ///
    /// - Returns: What the driver must do, in order.
    mutating func handle(_ event: SupervisionEvent, at time: MonotonicInstant) -> [SupervisionAction] {
        now = max(now, time)
        if case .finished = state { return [] }
        switch event {
        case .signal(let signal, let source):
            if signal.asksToStop {
                stopRequested(by: signal, from: source)
            } else if signal == .hangUp {
                reloadRequested()
            }
        case .directoryChanged:
            if configuration.watching { rescanAt = now + configuration.rescanQuiet }
        case .tick:
            fireDueDeadlines()
        case .couldNotStart(let number, let reason):
            couldNotStart(number, reason)
        case .ready(let number, let status, let plugins):
            ready(number, status: status, plugins: plugins)
        case .prepared(let number):
            prepared(number)
        case .upgradeRequested(let number, let plugins):
            upgradeRequested(by: number, plugins: plugins)
        case .notification(let number, let notification):
            passOn(notification, from: number)
        case .health(let number, let goodUntil):
            generations[number]?.health = goodUntil.map { .good(until: $0) } ?? .bad
        case .overran(let number, let overrun):
            guard let generation = generations[number], generation.isAlive else { break }
            kill(number, because: .overran(overrun), probing: false)
        case .suspended(let number, let process, let signal, let running):
            suspended(number, process: process, by: signal, running: running)
        case .resumed(let number, let process):
            resumed(number, process: process)
        case .ended(let number, let evidence):
            ended(number, evidence)
        case .news(let number, let news):
            heard(news, from: number)
        case .control(let client, let request):
            answer(request, from: client)
        case .clientLeft(let client):
            followers.removeAll { $0 == client }
            reloadClients.removeAll { $0 == client }
            restartClients.removeAll { $0.client == client }
            stopClients.removeAll { $0 == client }
        }
        forgetEndedGenerations()
        showFollowers(event)
        return takeActions()
    }

    /// The earliest instant at which a deadline falls due: the driver sends a
    /// ``SupervisionEvent/tick`` then, if nothing else happens first.
    var nextDeadline: MonotonicInstant? {
        var next = nextPing ?? .distantFuture
        if let rescanAt, case .serving = state { next = min(next, rescanAt) }
        if case .backingOff(let until, _) = state { next = min(next, until) }
        for generation in generations.values {
            switch generation.life {
            case .stopping(let deadline?): next = min(next, deadline)
            case .killed(_, let at, _): if case .stopping = state { next = min(next, at + configuration.reapGrace) }
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
        case .starting(let number), .serving(let number), .recovering(let number), .takingOver(let number, _): number
        case .upgrading(let serving, _): serving
        case .handingOver(let old, _): old
        case .stopping(let current): current
        case .backingOff, .finished: nil
        }
    }

    /// The generations whose worker lives.
    var liveGenerations: [Generation] {
        generations.values.filter(\.isLive).sorted { $0.number < $1.number }
    }

    private mutating func takeActions() -> [SupervisionAction] {
        defer { actions = [] }
        return actions
    }

    // MARK: Signals

    private mutating func stopRequested(by signal: Signal, from source: SignalSource) {
        // A signal to the whole service reaches the worker and the supervisor at once: the
        // worker's copy counts only when the supervisor has not seen one.
        if case .worker = source, firstStop != nil { return }
        switch state {
        case .finished:
            return
        case .stopping:
            // The same signal delivered twice at once (timeout(1) signals the host, then its
            // process group) is one request; another one later means: now.
            if let firstStop, firstStop.signal == signal, now - firstStop.at < configuration.repeatedSignalWindow { return }
            say("plugin-host: received \(signal.name) again; exiting at once without finishing the shutdown")
            for generation in liveGenerations { kill(generation.number, because: .stopAtOnce(signal), probing: false) }
            finish(ExitStatus(rawValue: 128 + signal.rawValue), .stoppedAtOnce)
        case .starting, .serving, .recovering, .backingOff, .upgrading, .handingOver, .takingOver:
            beginStop(signal)
        }
    }

    /// SIGINT or SIGTERM (or `plugin-host stop`, `because`): every generation stops (an
    /// upgrade's candidate that has not begun to bootstrap ends at once); the host ends when
    /// they have, or at their deadline.
    private mutating func beginStop(_ signal: Signal, because request: String? = nil) {
        firstStop = (signal, now)
        if let request {
            say("plugin-host: asked to stop (\(request)); shutting down")
            announceStopping("Stopping (\(request))")
        } else {
            say("plugin-host: received \(signal.name); shutting down (send it again after a second to exit at once)")
            announceStopping("Stopping (received \(signal.name))")
        }
        let current = currentGeneration
        for generation in liveGenerations {
            switch generation.life {
            case .starting where generation.cause == .upgrade, .prepared:
                kill(generation.number, because: .notNeeded, probing: false)
            case .starting, .proceeding, .serving:
                askToStop(generation.number, signal: signal)
            case .stopping, .killed, .ended:
                break
            }
        }
        finalStatus = .success
        state = .stopping(current: current.flatMap { generations[$0]?.isLive == true ? $0 : nil })
        finishStopIfDone()
    }

    private mutating func reloadRequested() {
        // Every build left out is tried again.
        quarantine = []
        switch state {
        case .serving(let number):
            actions.append(.ask(generation: number, .reload))
            reloading = number
        case .starting, .recovering, .backingOff, .upgrading, .handingOver, .takingOver:
            pendingReloads += 1
        case .stopping, .finished:
            break
        }
    }

    // MARK: What generations say

    private mutating func ready(_ number: Int, status: String, plugins: [PublishedPlugin]) {
        guard var generation = generations[number], generation.isAlive else { return }
        generation.plugins = plugins
        switch generation.life {
        case .starting, .proceeding, .prepared:
            generation.life = .serving
            generation.readyAt = now
        case .serving, .stopping, .killed, .ended:
            break
        }
        generations[number] = generation
        guard case .serving = generation.life else { return }
        switch state {
        case .starting(let current), .recovering(let current):
            if current == number { becomeServing(number, status: status) }
        case .takingOver(let candidate, let replaced):
            guard candidate == number else { break }
            sayUpgraded(number, replacing: replaced)
            becomeServing(number, status: status)
        case .serving(let current):
            // Ready again after a reload.
            if current == number { actions.append(.notify(.ready(status: status))) }
        case .upgrading, .backingOff, .handingOver, .stopping, .finished:
            // While generations change hands, the host is ready when the new one is.
            break
        }
    }

    /// A generation is ready: it serves from now on, and its builds are held.
    private mutating func becomeServing(_ number: Int, status: String) {
        state = .serving(number)
        guard let generation = generations[number] else { return }
        if let conditions = generation.conditions { lastConditions = conditions }
        answerRestart(of: number, ok: true, "generation \(number) serves")
        let running = generation.plugins.running
        servicePlugins.formUnion(running.filter(\.providesService).map(\.name))
        // Held before the host says it is ready, so that a file replaced once it is can
        // always be brought back.
        if isServiceRun(generation) {
            held = running.filter { $0.identity != nil }
            actions.append(.hold(held))
        }
        actions.append(.notify(.ready(status: status)))
        askPendingReloads(of: number)
    }

    /// Asks generation `number`, which serves again, for the reloads asked for while no
    /// generation served: SIGHUP and `plugin-host reload` during a start, a restart or an
    /// upgrade are never lost.
    private mutating func askPendingReloads(of number: Int) {
        while pendingReloads > 0 {
            pendingReloads -= 1
            actions.append(.ask(generation: number, .reload))
            reloading = number
        }
    }

    private mutating func prepared(_ number: Int) {
        guard var generation = generations[number], case .starting = generation.life else { return }
        generation.life = .prepared
        generations[number] = generation
        switch state {
        case .upgrading(let serving, let candidate):
            guard candidate == number else { break }
            askToStop(serving, signal: .terminate)
            state = .handingOver(old: serving, candidate: candidate)
        case .starting, .serving, .recovering, .backingOff, .handingOver, .takingOver, .stopping, .finished:
            break
        }
    }

    private mutating func upgradeRequested(by number: Int, plugins: [PublishedPlugin]) {
        guard generations[number]?.isAlive == true else { return }
        generations[number]?.plugins = plugins
        switch state {
        case .serving(let current):
            if current == number { startUpgrade(of: number) }
        case .starting, .recovering, .backingOff, .upgrading, .handingOver, .takingOver, .stopping, .finished:
            // A rescan while generations change hands is asked for again once one serves.
            break
        }
    }

    private mutating func passOn(_ notification: ServiceNotification, from number: Int) {
        guard currentGeneration == number else { return }
        switch notification {
        case .ready:
            break
        case .reloading, .status:
            actions.append(.notify(notification))
        case .stopping(let status):
            // A generation that stops to make way for the next is not the host stopping.
            if !isChangingHands { announceStopping(status) }
        }
    }

    private mutating func suspended(_ number: Int, process: ProcessID, by signal: Signal, running: [String]) {
        guard var generation = generations[number], generation.isAlive, generation.suspension == nil else { return }
        generation.suspension = Generation.Suspension(since: now, signal: signal)
        generations[number] = generation
        let limit = configuration.suspensionLimit.map {
            "; unless it is resumed within \(TextFormat.seconds($0)) (--timeout) it counts as hung"
        } ?? ""
        say("plugin-host: warning: the worker process \(process) was stopped by \(signal.name)"
            + (running.isEmpty ? ", while no plugin code was known to run" : " while " + running.joined(separator: " and ")) + limit)
    }

    private mutating func resumed(_ number: Int, process: ProcessID) {
        guard let suspension = generations[number]?.suspension else { return }
        generations[number]?.suspension = nil
        say("plugin-host: note: the worker process \(process) was resumed after \(TextFormat.seconds(now - suspension.since)) stopped")
    }

    // MARK: Generations that end

    private mutating func couldNotStart(_ number: Int, _ reason: String) {
        guard var generation = generations[number], generation.isLive else { return }
        say("plugin-host: error: cannot start a worker process: \(reason)")
        generation.life = .ended(WorkerEnding(status: .crashed, message: reason, culprits: [], phase: "start-up", summary: "could not start"))
        generations[number] = generation
        answerRestart(of: number, ok: false, "generation \(number) could not start: \(reason)")
        switch state {
        case .starting(let current):
            if current == number { finish(.failure, .cannotStartWorker) }
        case .recovering(let current), .takingOver(let current, _):
            if current == number { finish(.crashed, .cannotStartWorker) }
        case .upgrading(let serving, let candidate):
            guard candidate == number else { break }
            say("plugin-host: error: the upgrade could not start; the running plugins keep serving as they were")
            state = .serving(serving)
            askPendingReloads(of: serving)
        case .serving, .backingOff, .handingOver, .stopping, .finished:
            break
        }
    }

    private mutating func ended(_ number: Int, _ evidence: EndingEvidence) {
        guard var generation = generations[number], generation.isLive else { return }
        let ending: WorkerEnding
        if case .killed(let reason, _, let spokeForHost) = generation.life {
            ending = WorkerEnding(judging: evidence, killedBecause: reason, spokeForHost: spokeForHost)
        } else {
            ending = WorkerEnding(judging: evidence)
        }
        if !evidence.plugins.isEmpty { generation.plugins = evidence.plugins }
        generation.life = .ended(ending)
        generation.failedPlugin = evidence.failedPlugin
        generation.endedIn = evidence.workerPhase
        generations[number] = generation
        if let message = ending.message { say("plugin-host: error: " + message) }
        for culprit in ending.culprits {
            guard let name = evidence.plugins[number: culprit]?.name else { continue }
            failures[name] = ((failures[name]?.count ?? 0) + 1, FailureRecord(at: now, summary: ending.summary))
        }
        if restartClients.contains(where: { $0.generation == number }) {
            answerRestart(of: number, ok: false, "generation \(number) ended before it served: \(ending.message ?? "it was ended")")
        }
        if reloading == number {
            reloading = nil
            let reason = "generation \(number) ended before it told the reload's outcome: \(ending.message ?? "it was ended")"
            for client in reloadClients { actions.append(.answer(client: client, .reload(applied: false, reasons: [reason]))) }
            reloadClients = []
        }
        // Whatever it started ends with it.
        actions.append(.endProcesses(generation: number))
        // A held build whose file was written in place holds the new bytes: it cannot come back.
        let rewritten = Set(evidence.rewrittenInPlace.compactMap { evidence.plugins[number: $0]?.name })
        if !rewritten.isEmpty { held.removeAll { rewritten.contains($0.name) } }

        switch state {
        case .starting(let current):
            guard current == number else { break }
            finish(ending.status, ending.isIntended ? .finished : .failedBeforeReady)
        case .serving(let current), .recovering(let current):
            if current == number { recover(from: number) }
        case .backingOff:
            break
        case .upgrading(let serving, let candidate):
            if number == candidate {
                upgradeFailed(candidate, serving: serving)
                state = .serving(serving)
                askPendingReloads(of: serving)
            } else if number == serving {
                kill(candidate, because: .notNeeded, probing: false)
                recover(from: serving)
            }
        case .handingOver(let old, let candidate):
            // The candidate ending first is seen once the old one has ended too.
            guard number == old else { break }
            let replaced = generation.plugins.running
            if generations[candidate]?.ending != nil {
                restore(after: candidate, replacing: replaced)
            } else {
                actions.append(.ask(generation: candidate, .proceed))
                generations[candidate]?.life = .proceeding
                state = .takingOver(candidate, replacing: replaced)
            }
        case .takingOver(let candidate, let replaced):
            if number == candidate { restore(after: candidate, replacing: replaced) }
        case .stopping(let current):
            if current == number {
                finalStatus = ending.status
                state = .stopping(current: nil)
            }
            finishStopIfDone()
        case .finished:
            break
        }
    }

    // MARK: What generations tell, and what operators ask

    private mutating func heard(_ news: WorkerNews, from number: Int) {
        guard generations[number] != nil else { return }
        switch news {
        case .plugins(let conditions):
            generations[number]?.conditions = conditions
            if number == currentGeneration { lastConditions = conditions }
        case .reload(let applied, let reasons):
            if reloading == number { reloading = nil }
            lastReload = ReloadRecord(at: now, applied: applied, reasons: reasons)
            if applied { reloadsApplied += 1 } else { reloadsRefused += 1 }
            for client in reloadClients { actions.append(.answer(client: client, .reload(applied: applied, reasons: reasons))) }
            reloadClients = []
        case .warnings(let topic, let list):
            // A warning is said when it first applies (or changes), not again while it holds.
            let inForce = Set(warnings.values.joined())
            for warning in list where !inForce.contains(warning) { say("plugin-host: warning: " + warning) }
            warnings[topic] = list.isEmpty ? nil : list
        case .health(let durations):
            if number == currentGeneration { healthDurations = durations }
        }
    }

    private mutating func answer(_ request: ControlRequest, from client: Int) {
        switch request {
        case .status:
            actions.append(.answer(client: client, .status(status)))
        case .metrics:
            actions.append(.answer(client: client, .metrics(status)))
        case .follow:
            // What a follower is shown first is the status now; what it is shown next is what
            // changed from it.
            if followers.isEmpty { shownToFollowers = status }
            followers.append(client)
            actions.append(.answer(client: client, .change("following", status)))
        case .reload:
            switch state {
            case .stopping, .finished:
                actions.append(.answer(client: client, .refused("the host is stopping")))
            case .starting, .serving, .recovering, .backingOff, .upgrading, .handingOver, .takingOver:
                reloadClients.append(client)
                reloadRequested()
            }
        case .restart(let names, let brokenOnDisk):
            restart(names, brokenOnDisk: brokenOnDisk, for: client)
        case .stop:
            stopClients.append(client)
            switch state {
            case .stopping, .finished:
                break
            case .starting, .serving, .recovering, .backingOff, .upgrading, .handingOver, .takingOver:
                beginStop(.terminate, because: "plugin-host stop")
            }
        }
    }

    /// `plugin-host restart [PLUGIN...]`: the plugins named are no longer left out, and a new
    /// generation takes over as an upgrade does: it loads beside the serving one, which keeps
    /// serving until then. A restart waiting out its backoff starts at once.
    ///
    /// While a generation serves, a restart whose files on disk would break a running plugin
    /// (`brokenOnDisk`: version mismatches) is refused before anything starts, as the serving
    /// worker refuses such an upgrade: the serving generation is not disturbed, and no build is
    /// left out for it.
    private mutating func restart(_ names: [String], brokenOnDisk: [String], for client: Int) {
        let unknown = names.filter { name in !quarantine.contains { $0.name == name } && !lastConditions.contains { $0.name == name } }
        guard unknown.isEmpty else {
            actions.append(.answer(client: client, .refused(
                "no plugin \(unknown.joined(separator: ", ")) is left out or running; plugin-host status lists the plugins")))
            return
        }
        switch state {
        case .serving where !brokenOnDisk.isEmpty:
            actions.append(.answer(client: client, .refused(
                brokenOnDisk.joined(separator: "; ") + "; not restarting: the running plugins keep serving (fix the files, then restart again)")))
        case .serving(let serving):
            quarantine.removeAll { names.contains($0.name) }
            startUpgrade(of: serving)
            if case .upgrading(_, let candidate) = state { restartClients.append((client, candidate)) }
        case .backingOff(_, let cause):
            quarantine.removeAll { names.contains($0.name) }
            restarts.startLastSooner(at: now)
            let started = startGeneration(cause)
            state = .recovering(started)
            restartClients.append((client, started))
        case .starting, .recovering, .upgrading, .handingOver, .takingOver:
            actions.append(.answer(client: client, .refused("a new generation is starting already; ask again once the host serves")))
        case .stopping, .finished:
            actions.append(.answer(client: client, .refused("the host is stopping")))
        }
    }

    /// Answers the clients waiting for generation `number`'s restart.
    private mutating func answerRestart(of number: Int, ok: Bool, _ message: String) {
        for waiting in restartClients where waiting.generation == number {
            actions.append(.answer(client: waiting.client, .restart(ok: ok, message: message)))
        }
        restartClients.removeAll { $0.generation == number }
    }

    /// Shows the clients that follow the host what changed, when something did.
    private mutating func showFollowers(_ event: SupervisionEvent) {
        guard !followers.isEmpty else { return }
        var current = status
        current.now = shownToFollowers?.now ?? current.now
        guard current != shownToFollowers else { return }
        let before = shownToFollowers
        current.now = now
        shownToFollowers = current
        let what = before.map { $0.state != current.state ? "\($0.state) -> \(current.state)" : event.kind } ?? "following"
        for client in followers { actions.append(.answer(client: client, .change(what, current))) }
    }

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
        let restartsNow = RestartStatus(
            used: restarts.recent(endingAt: now, within: configuration.restart), limit: configuration.restart.limit,
            window: configuration.restart.window, total: restarts.count, inARow: restarts.inARow,
            nextDelay: configuration.restart.wait(beforeRestartInARow: restarts.inARow + 1), enabled: configuration.restart.enabled)
        return HostStatus(
            state: state.name, startedAt: startedAt, now: now, backingOffUntil: backingOff, generations: generationsNow,
            plugins: pluginStatuses, restarts: restartsNow, lastReload: lastReload, lastUpgrade: lastUpgrade,
            reloadsApplied: reloadsApplied, reloadsRefused: reloadsRefused, warnings: warnings.keys.sorted().flatMap { warnings[$0]! },
            healthDurations: healthDurations)
    }

    /// The plugins as the generation that speaks for the host told them, with the builds it
    /// runs, and those left out that it does not know of.
    private var pluginStatuses: [PluginStatus] {
        let speaking = currentGeneration.flatMap { generations[$0] }
        let published = speaking?.plugins ?? []
        let conditions = speaking?.conditions ?? (speaking == nil ? lastConditions : published.running.map {
            PluginCondition(name: $0.name, state: .serving, file: $0.file, version: $0.version)
        })
        var statuses = conditions.map { condition in
            let build = published.last { $0.name == condition.name && $0.isRunning }
            return PluginStatus(
                name: condition.name, state: condition.state, reason: condition.reason, version: build?.version ?? condition.version,
                file: build?.file ?? condition.file, build: build?.identity, requires: build?.requires ?? [],
                failures: failures[condition.name]?.count ?? 0, lastFailure: failures[condition.name]?.last)
        }
        for excluded in quarantine where !statuses.contains(where: { $0.name == excluded.name }) {
            statuses.append(PluginStatus(
                name: excluded.name, state: .leftOut, reason: "\(excluded.reason); left out until its file changes", file: excluded.file,
                failures: failures[excluded.name]?.count ?? 0, lastFailure: failures[excluded.name]?.last))
        }
        return statuses
    }

    /// What `generation` does for the host, in a few words.
    private func role(of generation: Generation) -> String {
        switch generation.life {
        case .killed: return "being ended"
        case .stopping: return generation.number == currentGeneration && !isChangingHands ? "stopping" : "draining"
        case .prepared: return "waiting to take over"
        case .proceeding: return "taking over"
        case .serving: return "serving"
        case .ended: return "ended"
        case .starting:
            switch generation.cause {
            case .start: return "starting"
            case .restart, .restore: return "recovering"
            case .upgrade: return "loading beside the serving one"
            }
        }
    }

    // MARK: Deadlines

    private mutating func fireDueDeadlines() {
        if let nextPing, now >= nextPing, let interval = configuration.watchdog {
            self.nextPing = now + interval / 2
            if isAnsweringForTheHost { actions.append(.pingWatchdog) }
        }
        if let at = rescanAt, now >= at, case .serving(let number) = state {
            rescanAt = nil
            actions.append(.ask(generation: number, .rescan))
        }
        if case .backingOff(let until, let cause) = state, now >= until {
            state = .recovering(startGeneration(cause))
        }
        for generation in liveGenerations {
            switch generation.life {
            case .stopping(let deadline?) where now >= deadline:
                kill(generation.number, because: .stopDeadline(allowed: (configuration.stopLimit ?? .zero) + OverrunPolicy.grace), probing: true)
                continue
            case .starting, .prepared, .proceeding, .serving, .stopping, .killed, .ended:
                break
            }
            if let suspension = generation.suspension, let limit = configuration.suspensionLimit, now - suspension.since >= limit,
                generation.isAlive {
                kill(generation.number, because: .stayedSuspended(suspension.signal, limit: limit), probing: false)
            }
        }
        // A worker sent SIGKILL is gone in a moment; one the kernel keeps longer (stuck in a
        // device) does not hold up the host's end.
        if case .stopping = state {
            let live = liveGenerations
            let overdue = live.allSatisfy { generation in
                if case .killed(_, let at, _) = generation.life { now >= at + configuration.reapGrace } else { false }
            }
            if !live.isEmpty, overdue {
                say("plugin-host: warning: \(live.count == 1 ? "a worker process" : "\(live.count) worker processes") sent SIGKILL "
                    + "did not end within \(TextFormat.seconds(configuration.reapGrace)); ending without waiting for "
                    + (live.count == 1 ? "it" : "them"))
                finish(.timedOut, .stopped)
            }
        }
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

    // MARK: Acting on generations

    /// Forks a generation for `cause`, with the builds it must leave out or load instead.
    ///
    /// - Returns: Its number.
    private mutating func startGeneration(_ cause: GenerationPlan.Cause, runningBefore: [String: String] = [:]) -> Int {
        generationsStarted += 1
        var plan = GenerationPlan()
        plan.number = generationsStarted
        plan.cause = cause
        plan.builds = buildsOfNextGeneration
        plan.runningBefore = runningBefore
        generations[plan.number] = Generation(number: plan.number, cause: cause, startedAt: now, life: .starting)
        actions.append(.start(plan))
        return plan.number
    }

    /// The builds the next generation is to leave out, and those it loads instead.
    private var buildsOfNextGeneration: BuildSelection {
        BuildSelection(
            excluded: quarantine,
            substitutes: held.compactMap { build in
                build.identity.map { BuildSelection.Substitute(name: build.name, file: build.file, identity: $0) }
            })
    }

    /// What an operator's restart would start from while a generation serves (it loads the
    /// files on disk beside that one, as an upgrade does): the builds it would select, and the
    /// plugins the serving generation runs, against which the driver checks the files on disk
    /// for the restart's `brokenOnDisk`. `nil` when none serves.
    var restartBasis: (builds: BuildSelection, running: [String])? {
        guard case .serving(let serving) = state else { return nil }
        return (buildsOfNextGeneration, (generations[serving]?.plugins.running ?? []).map(\.name))
    }

    /// Asks a generation to stop, by the deadline `--shutdown-timeout` and the grace allow.
    private mutating func askToStop(_ number: Int, signal: Signal) {
        guard var generation = generations[number], generation.isAlive else { return }
        generation.life = .stopping(deadline: configuration.stopLimit.map { now + $0 + OverrunPolicy.grace })
        // Its health checks end with its services; it answers for the host until it is gone.
        generation.health = .unknown
        generations[number] = generation
        actions.append(.ask(generation: number, .stop(signal: signal)))
    }

    private mutating func kill(_ number: Int, because reason: KillReason, probing: Bool) {
        guard var generation = generations[number], generation.isAlive else { return }
        generation.life = .killed(reason, at: now, spokeForHost: number == currentGeneration)
        generations[number] = generation
        actions.append(.kill(generation: number, probing: probing))
    }

    /// Forgets the generations that ended and that the state no longer names.
    private mutating func forgetEndedGenerations() {
        guard generations.values.contains(where: { !$0.isLive }) else { return }
        let named: Set<Int> = switch state {
        case .starting(let number), .serving(let number), .recovering(let number), .takingOver(let number, _): [number]
        case .upgrading(let serving, let candidate): [serving, candidate]
        case .handingOver(let old, let candidate): [old, candidate]
        case .stopping(let current): current.map { [$0] } ?? []
        case .backingOff, .finished: []
        }
        for (number, generation) in generations where !generation.isLive && !named.contains(number) {
            generations[number] = nil
        }
    }

    // MARK: Restarts

    /// A serving or recovering generation ended: the host ends with it, unless it ended
    /// unexpectedly and a new generation without its culprit can serve.
    private mutating func recover(from number: Int) {
        guard let generation = generations[number], let ending = generation.ending else { return }
        // A worker that was ending by itself (its services had ended, or one failed) is not
        // serving anyone: what went wrong then ends the host as in a batch run.
        let wasEnding = [.stopping, .shuttingDown, .exiting].contains(generation.endedIn)
        guard !ending.isIntended, !wasEnding, configuration.restart.enabled, isServiceRun(generation) else {
            finish(ending.status, ending.isIntended ? (generation.readyAt == nil ? .failedBeforeReady : .finished) : .notRestartable)
            return
        }
        let plugins = generation.plugins
        let culprits = ending.exoneration != nil || !ending.culprits.isEmpty
            ? ending.culprits : generation.failedPlugin.map { [$0] } ?? []
        let culpritBuilds = culprits.compactMap { plugins[number: $0] }
        let live = plugins.filter { $0.state != .removed }
        let dependents = Dependents.leaving(with: Set(culpritBuilds.map(\.name)), among: live, name: \.name, requires: \.requires)
            .map(\.plugin.name)
        let leaving = Set(culpritBuilds.map(\.name) + dependents)
        let staying = live.map(\.name).filter { !leaving.contains($0) }
        let culpritNames = culpritBuilds.map(\.label).joined(separator: ", ")
        if staying.isEmpty || (!configuration.watching && servicePlugins.isDisjoint(with: staying)) {
            say("plugin-host: not restarting: without \(culpritNames.isEmpty ? "it" : culpritNames)"
                + (dependents.isEmpty ? "" : " and the plugins that require it") + " no plugin is left to serve")
            finish(ending.status, .nothingLeftToServe)
            return
        }
        if let readyAt = generation.readyAt, now - readyAt >= configuration.restart.maximumDelay { restarts.servedSteadily() }
        let start = restarts.nextStart(after: now, within: configuration.restart)
        guard restarts.recordRestart(startingAt: start, within: configuration.restart) else {
            sayRestartLimit(at: start)
            finish(ending.status, .restartLimit)
            return
        }
        leaveOut(culpritBuilds, reason: ending.summary)
        let wait = start - now
        let without: String
        switch ending.exoneration {
        case .rewrittenInPlace: without = " (no plugin is to blame: a plugin file changed under the worker; the files as they are now are loaded)"
        case .killedFromOutside: without = " (no plugin is to blame: the worker was killed from outside; none is left out)"
        case nil: without = culprits.isEmpty ? " (the culprit is unknown: none is left out)" : " without \(culpritNames)"
        }
        say("plugin-host: restarting the plugins" + without
            + (dependents.isEmpty ? "" : " and the plugins that require it (\(dependents.joined(separator: ", ")))")
            + "; restart \(restarts.count), at most \(configuration.restart.description)" + waitClause(wait))
        notify(reloadingNow)
        notify(.status(
            "Restarting after " + (culpritBuilds.isEmpty ? "the worker \(ending.summary)" : "plugin \(culpritBuilds.map(\.name).joined(separator: ", ")) \(ending.summary)")
                + "; left out: " + (leaving.isEmpty ? "nothing" : leaving.sorted().joined(separator: ", "))))
        schedule(.restart, at: start)
    }

    /// Starts a generation for `cause` at `start`: now, or once the backoff has passed.
    private mutating func schedule(_ cause: GenerationPlan.Cause, at start: MonotonicInstant) {
        state = start > now ? .backingOff(until: start, then: cause) : .recovering(startGeneration(cause))
    }

    /// `; in 0.2 s (3 in a row)` when a restart waits.
    private func waitClause(_ wait: Duration) -> String {
        wait > .zero ? "; in \(TextFormat.seconds(wait)) (\(restarts.inARow) in a row, --restart-delay)" : ""
    }

    private mutating func sayRestartLimit(at start: MonotonicInstant) {
        say("plugin-host: not restarting: \(restarts.recent(endingAt: start, within: configuration.restart)) restarts "
            + "within \(TextFormat.seconds(configuration.restart.window)) already (--restart-limit "
            + "\(configuration.restart.limit)/\(TextFormat.seconds(configuration.restart.window)))")
    }

    /// Leaves `builds` out of every generation from now on, until their files change or
    /// SIGHUP: by their contents, so that a copy held open for a rollback is left out too.
    private mutating func leaveOut(_ builds: [PublishedPlugin], reason: String) {
        for build in builds {
            guard let identity = build.identity, !quarantine.contains(where: { $0.name == build.name && $0.identity.hasSameContents(as: identity) })
            else { continue }
            quarantine.append(BuildSelection.Excluded(name: build.name, file: build.file, identity: identity, reason: reason))
        }
    }

    // MARK: Upgrades

    /// The serving generation saw plugin files change: a candidate loads the new builds
    /// beside it.
    private mutating func startUpgrade(of serving: Int) {
        let running = generations[serving]?.plugins.running ?? []
        let candidate = startGeneration(
            .upgrade, runningBefore: Dictionary(running.map { ($0.name, $0.file) }, uniquingKeysWith: { first, _ in first }))
        notify(reloadingNow)
        notify(.status("Upgrading: loading the changed plugins beside the running ones"))
        state = .upgrading(serving: serving, candidate: candidate)
    }

    /// The candidate ended before the generation before was disturbed: the builds that
    /// failed are left out until their files change, and the host goes on as it was.
    private mutating func upgradeFailed(_ candidate: Int, serving: Int) {
        guard let ending = generations[candidate]?.ending else { return }
        let suspects = failedBuilds(of: candidate, comparedTo: generations[serving]?.plugins.running ?? [])
        leaveOut(suspects, reason: ending.isIntended ? "failed to load in a new worker" : ending.summary)
        say("plugin-host: error: the upgrade failed; the running plugins keep serving as they were; left out until "
            + "\(suspects.count == 1 ? "its file changes" : "their files change"): "
            + suspects.map { "\($0.nameAndVersion) (\($0.file))" }.joined(separator: ", "))
        notify(.status(
            "Upgrade failed: \(suspects.map(\.nameAndVersion).joined(separator: ", ")) left out; the running plugins keep serving"))
        lastUpgrade = UpgradeRecord(
            at: now, result: "failed", detail: "left out: " + suspects.map(\.nameAndVersion).joined(separator: ", ") + "; the generation before serves on")
    }

    /// The new generation failed after the one before had stopped: a generation with the
    /// builds that ran before takes over, without the failing ones.
    private mutating func restore(after candidate: Int, replacing replaced: [PublishedPlugin]) {
        guard let ending = generations[candidate]?.ending else { return }
        let suspects = failedBuilds(of: candidate, comparedTo: replaced)
        leaveOut(suspects, reason: ending.isIntended ? "failed to start in a new worker" : ending.summary)
        let start = restarts.nextStart(after: now, within: configuration.restart)
        guard restarts.recordRestart(startingAt: start, within: configuration.restart) else {
            say("plugin-host: not restoring the builds that ran before: too many restarts within "
                + "\(TextFormat.seconds(configuration.restart.window)) (--restart-limit)")
            finish(ending.isIntended ? .failure : ending.status, .restartLimit)
            return
        }
        let restored = suspects.compactMap { suspect in
            held.first { $0.name == suspect.name && !isLeftOut($0) }
        }
        let wait = start - now
        say("plugin-host: error: the upgrade failed after the plugins before it had stopped; bringing back the builds that ran "
            + "before: " + (restored.isEmpty ? "none held" : restored.map(\.nameAndVersion).joined(separator: ", "))
            + "; left out until their files change: " + suspects.map(\.nameAndVersion).joined(separator: ", ") + waitClause(wait))
        notify(.status("Upgrade failed: bringing back \(restored.map(\.nameAndVersion).joined(separator: ", "))"))
        lastUpgrade = UpgradeRecord(
            at: now, result: "rolled back",
            detail: "brought back: " + (restored.isEmpty ? "none held" : restored.map(\.nameAndVersion).joined(separator: ", "))
                + "; left out: " + suspects.map(\.nameAndVersion).joined(separator: ", "))
        schedule(.restore, at: start)
    }

    /// Whether `build` is left out.
    private func isLeftOut(_ build: PublishedPlugin) -> Bool {
        guard let identity = build.identity else { return false }
        return quarantine.contains { $0.name == build.name && $0.identity.hasSameContents(as: identity) }
    }

    /// The builds to blame for a failed upgrade: the culprits' when they are new builds;
    /// otherwise every build that changed.
    private func failedBuilds(of candidate: Int, comparedTo before: [PublishedPlugin]) -> [PublishedPlugin] {
        guard let generation = generations[candidate], let ending = generation.ending else { return [] }
        let changed = generation.plugins.filter { build in !before.contains { $0.isSameBuild(as: build) } }
        let culprits = (ending.isIntended ? generation.failedPlugin.map { [$0] } ?? [] : ending.culprits)
            .compactMap { generation.plugins[number: $0] }
        // With no build changed (`plugin-host restart`), the plugins its ending names failed.
        guard !changed.isEmpty else { return culprits }
        let changedCulprits = culprits.filter { culprit in changed.contains { $0.name == culprit.name } }
        return changedCulprits.isEmpty ? changed : changedCulprits
    }

    /// Says which builds an upgrade replaced.
    private mutating func sayUpgraded(_ number: Int, replacing replaced: [PublishedPlugin]) {
        let changes = (generations[number]?.plugins.running ?? []).compactMap { build -> String? in
            guard let before = replaced.first(where: { $0.name == build.name }) else { return "\(build.nameAndVersion) (new)" }
            return before.isSameBuild(as: build) ? nil : "\(build.name) \(before.version) -> \(build.version)"
        }
        let upgraded = changes.isEmpty ? "no plugin's build changed" : changes.joined(separator: ", ")
        say("plugin-host: upgraded: \(upgraded)")
        lastUpgrade = UpgradeRecord(at: now, result: "upgraded", detail: upgraded)
    }

    // MARK: Ending

    private mutating func finishStopIfDone() {
        guard case .stopping = state, liveGenerations.isEmpty else { return }
        finish(finalStatus, .stopped)
    }

    private mutating func finish(_ status: ExitStatus, _ reason: EndReason) {
        state = .finished(status, reason)
        for client in stopClients { actions.append(.answer(client: client, .stopped(status))) }
        for client in reloadClients + restartClients.map(\.client) {
            actions.append(.answer(client: client, .refused("the host ended with status \(status.rawValue) first")))
        }
        stopClients = []
        reloadClients = []
        restartClients = []
        actions.append(.exit(status, reason))
    }

    /// Tells systemd the host is stopping, once.
    private mutating func announceStopping(_ status: String) {
        guard !stoppingAnnounced else { return }
        stoppingAnnounced = true
        actions.append(.notify(.stopping(status: status)))
    }

    /// Whether one generation is giving way to another.
    private var isChangingHands: Bool {
        switch state {
        case .upgrading, .handingOver, .takingOver: true
        case .starting, .serving, .recovering, .backingOff, .stopping, .finished: false
        }
    }

    /// Whether the host runs as a service: with `--watch`, or with a plugin that runs one.
    func isServiceRun(_ generation: Generation) -> Bool {
        configuration.watching || generation.plugins.contains(where: \.providesService) || !servicePlugins.isEmpty
    }

    mutating func say(_ line: String) {
        actions.append(.say(line))
    }

    mutating func notify(_ notification: ServiceNotification) {
        actions.append(.notify(notification))
    }

    /// `RELOADING=1`, now.
    var reloadingNow: ServiceNotification {
        .reloading(at: now)
    }

    var time: MonotonicInstant { now }
}
