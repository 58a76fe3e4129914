/// The parent process of a run: it forks worker generations, which load and run the
/// plugins, and keeps for itself everything that must work whatever plugin code does to a
/// worker: the signals, the deadlines, the host's output, systemd's notifications, the
/// sockets plugins serve on, the exit status and the clean-up.
///
/// ```
///  supervisor ── fork ──▶ worker generation (own process group): survey, load, bootstrap, run, stop
///      │   ◀── supervision page: steps and deadlines, crash and exit records, output, readiness ──┘
///      │   ──▶ requests: stop (SIGINT, SIGTERM), reload (SIGHUP), rescan (--watch), proceed
///      └─ a worker that ends while serving: a new generation without its culprit (a restart);
///         plugin files that change: a new generation loaded beside the old (an upgrade)
/// ```
///
/// The supervisor runs no plugin code and loads no plugin, so nothing a plugin does to a
/// worker's signal handlers, masks, file descriptors, locks or threads can keep it from
/// ending a worker in time, naming the culprit, or starting the next one. It waits in
/// `poll` on a pipe its own signal handlers write to, and writes output only when `poll`
/// says a descriptor can take it, so a reader that stops reading cannot stall it.
///
/// It is a state machine: one ``State``, one ``Event`` for everything it reacts to, and
/// each transition in ``handle(_:)``.
struct Supervisor {
    /// What a run asks of its supervisor.
    struct Configuration {
        /// How long a worker may go without progress while it stops (`--shutdown-timeout`);
        /// `nil` for no limit.
        var stopLimit: Duration?
        /// How long a worker may stay stopped by a signal (SIGSTOP) before it counts as hung
        /// (`--timeout`); `nil` for no limit.
        var stoppedLimit: Duration?
        /// A worker's status after a crash or a plugin's `exit()`.
        var crashStatus = ExitStatus.crashed
        /// Where to send systemd's notifications, and how often its watchdog wants to hear
        /// from the host.
        var systemd = SystemdService(socket: nil, watchdog: nil)
        /// Directories whose `*.so` files the serving worker rescans when they change.
        var watching: [String] = []
        /// When to start a new generation after a failure, and how often.
        var restart = RestartPolicy()
        /// The sockets plugins serve on, held for the life of the host.
        var sockets: [NamedSocket] = []
    }

    /// What the host is doing, as generations come and go.
    enum State {
        /// The first generation starts; its failure ends the host, as a batch run's would.
        case starting(WorkerGeneration)
        /// A generation serves: it is ready.
        case serving(WorkerGeneration)
        /// A generation started after a failure, or to bring back the builds that ran
        /// before a failed upgrade, is getting ready.
        case recovering(WorkerGeneration)
        /// A candidate loads changed plugins while the serving generation keeps serving.
        case upgrading(serving: WorkerGeneration, candidate: WorkerGeneration)
        /// The candidate has loaded; the generation before drains and shuts down.
        case handingOver(old: WorkerGeneration, candidate: WorkerGeneration)
        /// The candidate bootstraps and gets ready; the builds that ran before are held.
        case takingOver(WorkerGeneration, replacing: [SupervisionPage.PluginEntry])
        /// The host stops: every generation was asked to; the exit status is `current`'s.
        case stopping(current: WorkerGeneration?)
        case finished(ExitStatus)
    }

    /// What the supervisor reacts to.
    enum Event {
        /// A generation says every component is ready.
        case ready(WorkerGeneration, status: String)
        /// A candidate has loaded its plugins and waits to bootstrap.
        case prepared(WorkerGeneration)
        /// The serving generation saw plugin files change that it cannot take up itself.
        case upgradeRequested(WorkerGeneration)
        /// A worker ended, and how.
        case ended(WorkerGeneration, WorkerEnding)
        /// SIGINT or SIGTERM, and when it arrived (``MonotonicClock`` nanoseconds).
        case stopSignal(Int32, at: Int64)
        /// SIGHUP.
        case reloadSignal
    }

    private let configuration: Configuration
    private let run: @Sendable (WorkerLink, GenerationPlan) -> Never
    private let signals: (readEnd: Int32, handled: [Int32])
    /// Children the host had before any plugin ran (a shell's output reader): never ended.
    private let inheritedChildren: Set<Int32>
    /// The soft limit of open descriptors the host started with.
    private let descriptorLimit: UInt64

    private(set) var state: State
    private var generations: [WorkerGeneration] = []
    private var events: [Event] = []
    private var output = PendingOutput()
    private var builds = HeldBuilds()
    private var quarantine: [BuildSelection.Excluded] = []
    private var restarts = RestartHistory()
    /// Plugins seen to run a service, in any generation.
    private var servicePlugins: Set<String> = []
    /// SIGINT and SIGTERM so far.
    private var stops = 0
    private var stoppingSent = false
    /// SIGHUPs that arrived while no generation served, to pass on once one does.
    private var pendingReloads = 0
    /// How often to ping systemd's watchdog, and when next.
    private var pingEvery: Int64?
    private var nextPing: Int64 = 0
    /// The plugin directories watched for changes, and when to tell the serving worker to
    /// rescan: a moment after the last change, so that a file being copied in is complete.
    private var directories: DirectoryWatch?
    private var rescanAt: Int64?

    /// Starts the first worker generation and supervises until the host ends, then exits
    /// with the run's status.
    static func start(_ configuration: Configuration, worker run: @escaping @Sendable (WorkerLink, GenerationPlan) -> Never) -> Never {
        let handled = [Signals.interrupt, Signals.terminate, Signals.hangUp, Signals.childEnded, Signals.wake]
        let readEnd: Int32
        do {
            readEnd = try SignalPipe.install(for: handled)
        } catch {
            StandardStreams.write("plugin-host: error: cannot start the supervisor: \(error)\n", to: 2)
            ProcessControl.exitImmediately(ExitStatus.failure.rawValue)
        }
        let inherited = Set(ProcessControl.children())
        ProcessControl.adoptOrphans()
        var supervisor = Supervisor(configuration, signals: (readEnd, handled), inheritedChildren: inherited, run: run)
        ProcessControl.exitImmediately(supervisor.supervise().rawValue)
    }

    private init(
        _ configuration: Configuration, signals: (readEnd: Int32, handled: [Int32]), inheritedChildren: Set<Int32>,
        run: @escaping @Sendable (WorkerLink, GenerationPlan) -> Never
    ) {
        self.configuration = configuration
        self.signals = signals
        self.inheritedChildren = inheritedChildren
        self.run = run
        descriptorLimit = DescriptorLimit.current.soft
        pingEvery = configuration.systemd.watchdog.map { $0 / 2 }
        directories = configuration.watching.isEmpty ? nil : DirectoryWatch(directories: configuration.watching)
        state = .finished(.failure)
    }

    // MARK: The loop

    private mutating func supervise() -> ExitStatus {
        guard let first = startGeneration(.start) else { return finishNow(.failure) }
        state = .starting(first)
        while !isFinished {
            for generation in live { generation.page.supervisorWakesAt.store(0) }
            for signal in SignalPipe.received(on: signals.readEnd) { received(signal) }
            observeGenerations()
            while !events.isEmpty, !isFinished { handle(events.removeFirst()) }
            forgetEndedGenerations()
            guard !isFinished else { break }
            pingWatchdog()
            requestRescan()
            wait(until: nextWake())
        }
        return finish()
    }

    private var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// The generations whose worker has not ended.
    private var live: [WorkerGeneration] { generations.filter { !$0.hasEnded } }

    /// Reads what each live generation did since the last look: signals it forwarded, its
    /// messages, whether it waits to bootstrap or asks for an upgrade, its deadlines, and
    /// whether it ended.
    private mutating func observeGenerations() {
        var ended: [Int32: Termination] = [:]
        for generation in live {
            while let change = ProcessControl.change(of: generation.process) {
                switch change {
                case .ended(let termination): ended[generation.process] = termination
                case .stopped(let signal): noticeStopped(generation, by: signal)
                case .continued: noticeResumed(generation)
                }
                if ended[generation.process] != nil { break }
            }
        }
        // Orphans adopted from other groups end too; a worker may end between the two looks.
        for (process, termination) in ProcessControl.reapAll() { ended[process] = termination }
        for generation in live {
            let forwarded = generation.page.forwarded
            if forwarded.stops > generation.forwardedStops {
                generation.forwardedStops = forwarded.stops
                // A signal to the whole service reaches the worker and the supervisor at once.
                if stops == 0 { received(forwarded.stopSignal) }
            }
            while forwarded.reloads > generation.forwardedReloads {
                generation.forwardedReloads += 1
                received(Signals.hangUp)
            }
            takeMessages(of: generation)
            if !generation.sawPrepared, generation.page.workerPhase == .prepared {
                generation.sawPrepared = true
                events.append(.prepared(generation))
            }
            let requests = generation.page.count(.upgrade)
            if requests > generation.upgradeRequests {
                generation.upgradeRequests = requests
                events.append(.upgradeRequested(generation))
            }
            if let termination = ended[generation.process] {
                takeMessages(of: generation)
                let ending = generation.verdict ?? WorkerEnding(termination, page: generation.page)
                generation.ending = ending
                if let message = ending.message { say("plugin-host: error: " + message + "\n") }
                endLeftovers(of: generation)
                events.append(.ended(generation, ending))
            } else if !generation.killed {
                checkDeadlines(of: generation)
            }
        }
    }

    // MARK: Transitions

    /// Moves the state machine on by `event`.
    private mutating func handle(_ event: Event) {
        switch (state, event) {
        case (.stopping, .stopSignal(let signal, let arrived)) where isRepeat(of: signal, at: arrived):
            // The same signal delivered twice at once (timeout(1) signals the host, then its
            // process group): one request.
            break
        case (.stopping, .stopSignal(let signal, _)), (.finished, .stopSignal(let signal, _)):
            say("plugin-host: received \(FatalSignals.name(of: signal)) again; exiting at once without finishing the shutdown\n")
            for generation in live { generation.kill() }
            state = .finished(ExitStatus(rawValue: 128 + signal))
        case (_, .stopSignal(let signal, let arrived)):
            firstStop = (signal, arrived)
            stopHost(signal)

        case (.serving(let serving), .reloadSignal):
            quarantine = []
            serving.page.raise(.reload)
        case (_, .reloadSignal):
            quarantine = []
            pendingReloads += 1

        case (.starting(let starting), .ready(let generation, let status)) where starting === generation,
             (.recovering(let starting), .ready(let generation, let status)) where starting === generation:
            becomeServing(generation, status: status)
        case (.takingOver(let candidate, let replaced), .ready(let generation, let status)) where candidate === generation:
            sayUpgraded(generation, replacing: replaced)
            becomeServing(generation, status: status)
        case (.serving(let serving), .ready(let generation, let status)) where serving === generation:
            // Ready again after a reload.
            configuration.systemd.notify(.ready(status: status))

        case (.serving(let serving), .upgradeRequested(let generation)) where serving === generation:
            startUpgrade(of: serving)
        case (.upgrading(let serving, let candidate), .prepared(let generation)) where candidate === generation:
            serving.askToStop(signal: Signals.terminate)
            state = .handingOver(old: serving, candidate: candidate)

        case (.starting(let current), .ended(let generation, let ending)) where current === generation:
            state = .finished(ending.status)
        case (.serving(let current), .ended(let generation, let ending)) where current === generation,
             (.recovering(let current), .ended(let generation, let ending)) where current === generation:
            recover(from: generation, ending)
        case (.upgrading(let serving, let candidate), .ended(let generation, let ending)):
            if generation === candidate {
                upgradeFailed(candidate, ending, serving: serving)
                state = .serving(serving)
            } else if generation === serving {
                candidate.kill()
                recover(from: serving, ending)
            }
        case (.handingOver(let old, let candidate), .ended(let generation, _)) where generation === old:
            let replaced = old.runningPlugins.map(old.page.entry(of:))
            if let failed = candidate.ending {
                restore(after: candidate, failed, replacing: replaced)
            } else {
                candidate.page.raise(.proceed)
                state = .takingOver(candidate, replacing: replaced)
            }
        case (.takingOver(let candidate, let replaced), .ended(let generation, let ending)) where generation === candidate:
            restore(after: candidate, ending, replacing: replaced)
        case (.stopping(let current), .ended(let generation, let ending)):
            if current === generation { state = .stopping(current: nil); finalStatus = ending.status }
            if live.isEmpty { state = .finished(finalStatus) }

        default:
            // A generation that was stopped or ended by the supervisor, or a candidate that
            // ended while the generation before was still stopping (seen once that one ends).
            break
        }
    }

    /// The status the host exits with once every generation has stopped.
    private var finalStatus = ExitStatus.success
    /// How many generations were started.
    private var generationsStarted = 0
    /// The signal that stopped the host, and when it arrived.
    private var firstStop: (signal: Int32, at: Int64)?

    /// How long after a stop signal the same signal counts as the same request: a repeat
    /// that comes later is a deliberate one, which ends the host at once.
    static let repeatedSignalWindow: Int64 = 1_000_000_000

    /// Whether `signal`, arrived at `time`, repeats the signal that stopped the host within
    /// ``repeatedSignalWindow``.
    private func isRepeat(of signal: Int32, at time: Int64) -> Bool {
        guard let firstStop else { return false }
        return firstStop.signal == signal && time - firstStop.at < Self.repeatedSignalWindow
    }

    /// SIGINT or SIGTERM: every generation stops; the host ends when they have.
    private mutating func stopHost(_ signal: Int32) {
        let name = FatalSignals.name(of: signal)
        say("plugin-host: received \(name); shutting down (send it again after a second to exit at once)\n")
        notifyStopping("Stopping (received \(name))")
        let current = currentGeneration
        for generation in live { generation.askToStop(signal: signal) }
        finalStatus = .success
        state = live.isEmpty ? .finished(.success) : .stopping(current: current)
    }

    /// The generation that speaks for the host: whose status is the host's.
    private var currentGeneration: WorkerGeneration? {
        switch state {
        case .starting(let generation), .serving(let generation), .recovering(let generation), .takingOver(let generation, _):
            generation
        case .upgrading(let serving, _): serving
        case .handingOver(let old, _): old
        case .stopping(let current): current
        case .finished: nil
        }
    }

    /// A generation is ready: it serves from now on.
    private mutating func becomeServing(_ generation: WorkerGeneration, status: String) {
        state = .serving(generation)
        let running = generation.runningPlugins
        servicePlugins.formUnion(running.filter { generation.page.state(of: $0).providesService }.map { generation.page.entry(of: $0).name })
        // Held before the host says it is ready, so that a file replaced once it is can
        // always be brought back.
        if isServiceRun(generation) { builds.hold(running.map(generation.page.entry(of:))) }
        configuration.systemd.notify(.ready(status: status))
        while pendingReloads > 0 {
            pendingReloads -= 1
            generation.page.raise(.reload)
        }
    }

    /// Whether the host runs as a service: with `--watch`, or with a plugin that runs one.
    private func isServiceRun(_ generation: WorkerGeneration) -> Bool {
        !configuration.watching.isEmpty
            || generation.page.plugins.contains { generation.page.state(of: $0).providesService }
            || !servicePlugins.isEmpty
    }

    // MARK: Restarts

    /// A serving or recovering generation ended: the host ends with it, unless it ended
    /// unexpectedly and a new generation without its culprit can serve.
    private mutating func recover(from generation: WorkerGeneration, _ ending: WorkerEnding) {
        let page = generation.page
        // A worker that was ending by itself (its services had ended, or one failed) is not
        // serving anyone: what went wrong then ends the host as in a batch run.
        let wasEnding = [.stopping, .shuttingDown, .exiting].contains(page.workerPhase)
        guard !ending.isIntended, !wasEnding, configuration.restart.enabled, isServiceRun(generation) else {
            state = .finished(ending.status)
            return
        }
        let culprits = ending.culprits.isEmpty ? page.failedPlugin.map { [$0] } ?? [] : ending.culprits
        let leaving = generation.pluginsRequiring(culprits)
        let leavingNames = Set(leaving.map { page.entry(of: $0).name })
        let staying = page.plugins.filter { !leaving.contains($0) && page.state(of: $0).state != .removed }
            .map { page.entry(of: $0).name }
        let culpritNames = culprits.map { page.label(of: $0) }.joined(separator: ", ")
        if staying.isEmpty || (configuration.watching.isEmpty && servicePlugins.isDisjoint(with: staying)) {
            say("plugin-host: not restarting: without \(culpritNames.isEmpty ? "it" : culpritNames)"
                + (leaving.count > culprits.count ? " and the plugins that require it" : "")
                + " no plugin is left to serve\n")
            state = .finished(ending.status)
            return
        }
        guard restarts.recordRestart(at: MonotonicClock.now, within: configuration.restart) else {
            say("plugin-host: not restarting: \(restarts.recent(at: MonotonicClock.now, within: configuration.restart)) restarts "
                + "within \(TextFormat.seconds(configuration.restart.window)) already (--restart-limit "
                + "\(configuration.restart.limit)/\(TextFormat.seconds(configuration.restart.window)))\n")
            state = .finished(ending.status)
            return
        }
        let reason = ending.summary
        leaveOut(culprits.map(page.entry(of:)), reason: reason)
        let dependents = leaving.filter { !culprits.contains($0) }.map { page.entry(of: $0).name }
        say("plugin-host: restarting the plugins"
            + (culprits.isEmpty ? " (the culprit is unknown: none is left out)" : " without \(culpritNames)")
            + (dependents.isEmpty ? "" : " and the plugins that require it (\(dependents.joined(separator: ", ")))")
            + "; restart \(restarts.count), at most \(configuration.restart.description)\n")
        configuration.systemd.notify(.reloading(monotonicMicroseconds: MonotonicClock.now / 1000))
        configuration.systemd.notify(.status(
            "Restarting after plugin \(culprits.map { page.entry(of: $0).name }.joined(separator: ", ")) \(reason); "
                + "left out: \(leavingNames.sorted().joined(separator: ", "))"))
        guard let next = startGeneration(.restart) else { return }
        state = .recovering(next)
    }

    // MARK: Upgrades

    /// The serving generation saw plugin files change: a candidate loads the new builds
    /// beside it.
    private mutating func startUpgrade(of serving: WorkerGeneration) {
        let running = Dictionary(
            serving.runningPlugins.map { serving.page.entry(of: $0) }.map { ($0.name, $0.file) }, uniquingKeysWith: { first, _ in first })
        guard let candidate = startGeneration(.upgrade, runningBefore: running) else { return }
        configuration.systemd.notify(.reloading(monotonicMicroseconds: MonotonicClock.now / 1000))
        configuration.systemd.notify(.status("Upgrading: loading the changed plugins beside the running ones"))
        state = .upgrading(serving: serving, candidate: candidate)
    }

    /// The candidate ended before the generation before was disturbed: the builds that
    /// failed are left out until their files change, and the host goes on as it was.
    private mutating func upgradeFailed(_ candidate: WorkerGeneration, _ ending: WorkerEnding, serving: WorkerGeneration) {
        let suspects = failedBuilds(of: candidate, ending, comparedTo: serving.runningPlugins.map(serving.page.entry(of:)))
        leaveOut(suspects, reason: ending.isIntended ? "failed to load in a new worker" : ending.summary)
        say("plugin-host: error: the upgrade failed; the running plugins keep serving as they were; left out until "
            + "\(suspects.count == 1 ? "its file changes" : "their files change"): "
            + suspects.map { "\($0.name) \($0.version) (\($0.file))" }.joined(separator: ", ") + "\n")
        configuration.systemd.notify(.status(
            "Upgrade failed: \(suspects.map { "\($0.name) \($0.version)" }.joined(separator: ", ")) left out; "
                + "the running plugins keep serving"))
    }

    /// The new generation failed after the one before had stopped: a generation with the
    /// builds that ran before takes over, without the failing ones.
    private mutating func restore(after candidate: WorkerGeneration, _ ending: WorkerEnding, replacing replaced: [SupervisionPage.PluginEntry]) {
        let suspects = failedBuilds(of: candidate, ending, comparedTo: replaced)
        leaveOut(suspects, reason: ending.isIntended ? "failed to start in a new worker" : ending.summary)
        guard restarts.recordRestart(at: MonotonicClock.now, within: configuration.restart) else {
            say("plugin-host: not restoring the builds that ran before: too many restarts within "
                + "\(TextFormat.seconds(configuration.restart.window))\n")
            state = .finished(ending.isIntended ? .failure : ending.status)
            return
        }
        let restored = suspects.compactMap { suspect in replaced.first { $0.name == suspect.name } }
        say("plugin-host: error: the upgrade failed after the plugins before it had stopped; bringing back the builds that ran "
            + "before: " + (restored.isEmpty ? "none held" : restored.map { "\($0.name) \($0.version)" }.joined(separator: ", "))
            + "; left out until their files change: " + suspects.map { "\($0.name) \($0.version)" }.joined(separator: ", ") + "\n")
        configuration.systemd.notify(.status(
            "Upgrade failed: bringing back \(restored.map { "\($0.name) \($0.version)" }.joined(separator: ", "))"))
        guard let next = startGeneration(.restore) else { return }
        state = .recovering(next)
    }

    /// The builds to blame for a failed upgrade: the culprits' when they are new builds;
    /// otherwise every build that changed.
    private func failedBuilds(
        of candidate: WorkerGeneration, _ ending: WorkerEnding, comparedTo before: [SupervisionPage.PluginEntry]
    ) -> [SupervisionPage.PluginEntry] {
        let page = candidate.page
        let changed = page.plugins.map(page.entry(of:)).filter { entry in
            !before.contains { $0.name == entry.name && $0.identity == entry.identity }
        }
        let culprits = (ending.isIntended ? page.failedPlugin.map { [$0] } ?? [] : ending.culprits).map(page.entry(of:))
        let changedCulprits = culprits.filter { culprit in changed.contains { $0.name == culprit.name } }
        return changedCulprits.isEmpty ? changed : changedCulprits
    }

    /// Leaves `builds` out of every generation from now on, until their files change or
    /// SIGHUP.
    private mutating func leaveOut(_ entries: [SupervisionPage.PluginEntry], reason: String) {
        for entry in entries {
            guard let identity = entry.identity else { continue }
            quarantine.append(BuildSelection.Excluded(name: entry.name, file: entry.file, identity: identity, reason: reason))
        }
    }

    /// Says which builds an upgrade replaced.
    private mutating func sayUpgraded(_ generation: WorkerGeneration, replacing replaced: [SupervisionPage.PluginEntry]) {
        let page = generation.page
        let changes = generation.runningPlugins.map(page.entry(of:)).compactMap { entry -> String? in
            guard let before = replaced.first(where: { $0.name == entry.name }) else { return "\(entry.name) \(entry.version) (new)" }
            return before.identity == entry.identity ? nil : "\(entry.name) \(before.version) -> \(entry.version)"
        }
        say("plugin-host: upgraded: \(changes.isEmpty ? "no plugin's build changed" : changes.joined(separator: ", "))\n")
    }

    // MARK: Generations

    /// Forks a generation with the builds and sockets it needs.
    ///
    /// - Returns: The generation, or `nil` when it could not be started: then the host ends.
    private mutating func startGeneration(_ cause: GenerationPlan.Cause, runningBefore: [String: String] = [:]) -> WorkerGeneration? {
        var plan = GenerationPlan()
        generationsStarted += 1
        plan.number = generationsStarted
        plan.cause = cause
        plan.builds = BuildSelection(excluded: quarantine, substitutes: builds.substitutes)
        plan.sockets = Dictionary(configuration.sockets.map { ($0.name, $0.descriptor) }, uniquingKeysWith: { first, _ in first })
        plan.runningBefore = runningBefore
        plan.systemdListens = configuration.systemd.socket != nil
        let closing = [directories?.descriptor, configuration.systemd.socket?.descriptor].compactMap { $0 }
        do {
            let generation = try WorkerGeneration.start(
                plan, signals: signals, closing: closing, descriptorLimit: descriptorLimit, crashStatus: configuration.crashStatus,
                run: run)
            generations.append(generation)
            return generation
        } catch {
            say("plugin-host: error: cannot start a worker process: \(error)\n")
            state = .finished(cause == .start ? .failure : .crashed)
            return nil
        }
    }

    /// Ends every process a generation's plugins started and left running: its process
    /// group, and when no other generation lives, the orphans adopted from other groups.
    private mutating func endLeftovers(of generation: WorkerGeneration) {
        let others = live.filter { $0 !== generation }
        let kept = inheritedChildren.union(generations.map(\.process))
        sayEnded(ProcessControl.endProcesses(inGroup: generation.process, orphansExcept: others.isEmpty ? kept : nil))
    }

    /// Unmaps the pages of generations that ended and that the state no longer refers to.
    private mutating func forgetEndedGenerations() {
        let referenced: [WorkerGeneration] = switch state {
        case .starting(let generation), .serving(let generation), .recovering(let generation), .takingOver(let generation, _):
            [generation]
        case .upgrading(let serving, let candidate): [serving, candidate]
        case .handingOver(let old, let candidate): [old, candidate]
        case .stopping(let current): current.map { [$0] } ?? []
        case .finished: generations
        }
        let forgotten = generations.filter { generation in generation.hasEnded && !referenced.contains { $0 === generation } }
        guard !forgotten.isEmpty else { return }
        for generation in forgotten { generation.page.unmap() }
        generations.removeAll { generation in forgotten.contains { $0 === generation } }
    }

    private mutating func sayEnded(_ processes: [Int32]) {
        guard !processes.isEmpty else { return }
        say("plugin-host: note: ended \(processes.count) process\(processes.count == 1 ? "" : "es") that plugins started and "
            + "left running (\(processes.sorted().map(String.init).joined(separator: ", ")))\n")
    }

    /// Ends what is left, writes what is waiting, and gives the status to exit with.
    private mutating func finish() -> ExitStatus {
        guard case .finished(let status) = state else { return .failure }
        for generation in live { generation.kill() }
        let deadline = MonotonicClock.now + 2_000_000_000
        while !live.isEmpty, MonotonicClock.now < deadline {
            for (process, termination) in ProcessControl.reapAll() {
                guard let generation = live.first(where: { $0.process == process }) else { continue }
                generation.ending = generation.verdict ?? WorkerEnding(termination, page: generation.page)
            }
            ProcessControl.sleep(nanoseconds: 2_000_000)
        }
        for generation in generations { sayEnded(ProcessControl.endProcesses(inGroup: generation.process, orphansExcept: nil)) }
        sayEnded(ProcessControl.endProcesses(inGroup: nil, orphansExcept: inheritedChildren.union(generations.map(\.process))))
        for socket in configuration.sockets { socket.close() }
        output.drain(givingUpAfter: 2_000_000_000)
        return status
    }

    private mutating func finishNow(_ status: ExitStatus) -> ExitStatus {
        state = .finished(status)
        output.drain(givingUpAfter: 2_000_000_000)
        return status
    }

    // MARK: Signals

    private mutating func received(_ signal: Int32) {
        switch signal {
        case Signals.interrupt, Signals.terminate:
            stops += 1
            events.append(.stopSignal(signal, at: MonotonicClock.now))
        case Signals.hangUp:
            events.append(.reloadSignal)
        default:
            break
        }
    }

    // MARK: Deadlines

    /// Ends `generation` when one of its steps overran: at its deadline when the worker
    /// cannot be trusted to go on, a grace period later when the worker should have gone on
    /// alone; and when it stops without progress for longer than the stop limit.
    private mutating func checkDeadlines(of generation: WorkerGeneration) {
        let page = generation.page
        let now = MonotonicClock.now
        // A worker that does not speak for the host (a new one loading beside it) is only
        // the worker.
        let stopped = currentGeneration === generation ? "stopped the host" : "stopped the new worker"
        for owner in page.stepOwners {
            guard let step = page.step(of: owner), step.deadline != .max, now >= step.limit else { continue }
            let allowed = TextFormat.seconds(nanoseconds: step.deadline - step.started)
            let message: String
            var culprits = owner.map { [$0] } ?? []
            if let owner {
                let label = "plugin \(page.label(of: owner))"
                if step.policy == .endHost {
                    message = "\(label) timed out during \(step.phase): still running after \(allowed) (--timeout); "
                        + "\(stopped) without waiting for it"
                } else {
                    message = "\(label) did not finish its \(step.phase) within \(allowed), and the host was stuck behind it "
                        + "for another \(TextFormat.seconds(nanoseconds: OverrunPolicy.grace)); \(stopped) without waiting for it"
                }
            } else {
                let (why, culprit) = stuckWorkerCulprit(generation)
                culprits = culprit.map { [$0] } ?? []
                message = "plugin-host did not finish its \(step.phase) within \(allowed): \(why); stopped it without waiting"
            }
            let summary = step.policy == .endHost ? "timed out during \(step.phase)" : "did not finish its \(step.phase) in time"
            generation.verdict = WorkerEnding(
                endedBySupervisor: .timedOut, message: message, summary: summary, culprits: culprits, phase: step.phase.description)
            generation.kill()
            return
        }
        if let (since, signal) = generation.stopped, let limit = configuration.stoppedLimit.map(MonotonicClock.nanoseconds),
            now - since >= limit {
            let running = page.pluginCodeRunning()
            var seen = Set<PluginNumber>()
            let culprits = running.map(\.plugin).filter { seen.insert($0).inserted }
            let who = culprits.isEmpty
                ? "no plugin code was known to run" : culprits.map { "plugin \(page.label(of: $0))" }.joined(separator: " and ") + " ran"
            generation.verdict = WorkerEnding(
                endedBySupervisor: .timedOut,
                message: "the worker process stayed stopped by \(FatalSignals.name(of: signal)) for "
                    + "\(TextFormat.seconds(nanoseconds: limit)) (--timeout) while \(who); \(stopped) without waiting for it",
                summary: "stopped its process", culprits: culprits, phase: running.first?.phase.description ?? page.workerPhase.description)
            generation.kill()
            return
        }
        guard let stopLimit = configuration.stopLimit.map(MonotonicClock.nanoseconds), generation.stopAskedAt != nil else { return }
        let progress = page.progress
        if progress != generation.lastProgress {
            generation.lastProgress = progress
            generation.lastProgressAt = now
        } else if !page.stepOwners.contains(where: { page.step(of: $0) != nil }), now - generation.lastProgressAt >= stopLimit + OverrunPolicy.grace {
            let (why, culprit) = stuckWorkerCulprit(generation)
            generation.verdict = WorkerEnding(
                endedBySupervisor: .timedOut,
                message: "plugin-host did not finish stopping: it made no progress for "
                    + "\(TextFormat.seconds(nanoseconds: now - generation.lastProgressAt)) (--shutdown-timeout); \(why); stopped it without waiting",
                summary: "kept the host from stopping", culprits: culprit.map { [$0] } ?? [], phase: "stop")
            generation.kill()
        }
    }

    /// A signal stopped `generation`'s worker: said at once; it counts as hung once it stays
    /// stopped past the limit (``checkDeadlines(of:)``).
    private mutating func noticeStopped(_ generation: WorkerGeneration, by signal: Int32) {
        guard generation.stopped == nil else { return }
        generation.stopped = (MonotonicClock.now, signal)
        let running = generation.page.pluginCodeRunning().map { "plugin \(generation.page.label(of: $0.plugin)) was \($0.phase.activity)" }
        let limit = configuration.stoppedLimit.map { "; unless it is resumed within \(TextFormat.seconds($0)) (--timeout) it counts as hung" } ?? ""
        say("plugin-host: warning: the worker process \(generation.process) was stopped by \(FatalSignals.name(of: signal))"
            + (running.isEmpty ? ", while no plugin code was known to run" : " while " + running.joined(separator: " and ")) + limit + "\n")
    }

    private mutating func noticeResumed(_ generation: WorkerGeneration) {
        guard let stopped = generation.stopped else { return }
        generation.stopped = nil
        say("plugin-host: note: the worker process \(generation.process) was resumed after "
            + "\(TextFormat.seconds(nanoseconds: MonotonicClock.now - stopped.since)) stopped\n")
    }

    /// What holds up a worker's driving thread, as far as can be told from outside, and the
    /// plugin to blame, if one is.
    private func stuckWorkerCulprit(_ generation: WorkerGeneration) -> (String, PluginNumber?) {
        if output.holds(generation.number) { return ("its output is not being read", nil) }
        guard let stall = WorkerRecords.askStall(of: generation.process, page: generation.page), let culprit = stall.culprit else {
            return ("the host's own thread is blocked (by a lock plugin code holds, or in the C library)", nil)
        }
        return ("the host's own thread is stuck in code of plugin \(generation.page.label(of: culprit)), such as an atexit handler", culprit)
    }

    /// When the loop must wake by itself next: the earliest limit of a step, of a worker's
    /// progress while it stops, of the watchdog or of a rescan.
    private func nextWake() -> Int64? {
        var next = Int64.max
        for generation in live {
            if generation.killed {
                next = min(next, MonotonicClock.now &+ 100_000_000)
                continue
            }
            let page = generation.page
            for owner in page.stepOwners {
                if let step = page.step(of: owner), step.deadline != .max { next = min(next, step.limit) }
            }
            if generation.stopAskedAt != nil, let stopLimit = configuration.stopLimit.map(MonotonicClock.nanoseconds) {
                next = min(next, generation.lastProgressAt &+ stopLimit &+ OverrunPolicy.grace)
            }
            if let stopped = generation.stopped, let limit = configuration.stoppedLimit.map(MonotonicClock.nanoseconds) {
                next = min(next, stopped.since &+ limit)
            }
        }
        if pingEvery != nil { next = min(next, nextPing) }
        if let rescanAt, case .serving = state { next = min(next, rescanAt) }
        return next == .max ? nil : next
    }

    /// Publishes when the loop wakes next, so that a worker posting an earlier deadline
    /// signals it, then waits for a signal, for output to be writable, for a directory to
    /// change, or for that time.
    private mutating func wait(until wake: Int64?) {
        for generation in live { generation.page.supervisorWakesAt.store(wake ?? .max) }
        // A step posted while the wake time was being worked out is seen now, or its poster
        // saw the new wake time and signalled.
        if let again = nextWake(), again < (wake ?? .max) {
            for generation in live { generation.page.supervisorWakesAt.store(0) }
            return
        }
        var interests = [Poll.Interest(descriptor: signals.readEnd, writing: false)]
        let outputAt = output.descriptor.map { descriptor in
            interests.append(Poll.Interest(descriptor: descriptor, writing: true))
            return interests.count - 1
        }
        let directoriesAt = directories.map { watch in
            interests.append(Poll.Interest(descriptor: watch.descriptor, writing: false))
            return interests.count - 1
        }
        let timeout = wake.map { max(0, $0 - MonotonicClock.now) }
        let ready = Poll.wait(for: interests, timeout: timeout)
        if let outputAt, ready[outputAt], let (number, message) = output.writeHead() {
            generations.first { $0.number == number && !$0.hasEnded }?.page.acknowledge(message)
        }
        if let directoriesAt, ready[directoriesAt], directories?.takeChanges() == true {
            rescanAt = MonotonicClock.now + 200_000_000
        }
    }

    // MARK: systemd and --watch

    /// Pings systemd's watchdog when it is time, unless the serving worker's last health
    /// check was bad or is too old: then systemd restarts the host.
    private mutating func pingWatchdog() {
        guard let pingEvery else { return }
        let now = MonotonicClock.now
        guard now >= nextPing else { return }
        nextPing = now + pingEvery
        guard let current = currentGeneration, !current.hasEnded else {
            // Between generations the supervisor itself answers for the host.
            configuration.systemd.pingWatchdog()
            return
        }
        if current.page.workerPhase != .running || current.page.healthyUntil.load() > now { configuration.systemd.pingWatchdog() }
    }

    /// Tells the serving worker to rescan the plugin directories once they have been quiet
    /// a moment; while generations change hands, the rescan waits for the next to serve.
    private mutating func requestRescan() {
        guard let at = rescanAt, MonotonicClock.now >= at, case .serving(let serving) = state else { return }
        rescanAt = nil
        serving.page.raise(.rescan)
    }

    /// Tells systemd the host is stopping, once.
    private mutating func notifyStopping(_ status: String) {
        guard !stoppingSent else { return }
        stoppingSent = true
        configuration.systemd.notify(.stopping(status: status))
    }

    // MARK: Output

    /// Takes the worker's waiting message, if any: text is queued for writing (the worker
    /// waits until it is written), a notification is passed on to systemd when the worker
    /// speaks for the host.
    private mutating func takeMessages(of generation: WorkerGeneration) {
        guard !output.holds(generation.number), let (number, message) = generation.page.pendingMessage(after: generation.messagesTaken)
        else { return }
        generation.messagesTaken = number
        switch message {
        case .output(let bytes):
            output.append(bytes, to: 1, acknowledging: (generation.number, number))
        case .error(let bytes):
            output.append(bytes, to: 2, acknowledging: (generation.number, number))
        case .notification(let notification):
            generation.page.acknowledge(number)
            received(notification, from: generation)
        }
    }

    private mutating func received(_ notification: ServiceNotification, from generation: WorkerGeneration) {
        let speaks = currentGeneration === generation
        switch notification {
        case .ready(let status):
            events.append(.ready(generation, status: status))
        case .stopping(let status):
            // A generation that stops to make way for the next is not the host stopping.
            if speaks, !isChangingHands { notifyStopping(status) }
        case .reloading, .status:
            if speaks { configuration.systemd.notify(notification) }
        }
    }

    /// Whether one generation is giving way to another.
    private var isChangingHands: Bool {
        switch state {
        case .upgrading, .handingOver, .takingOver: true
        default: false
        }
    }

    /// Queues a line of the supervisor's own for standard error.
    private mutating func say(_ text: String) {
        output.append(Array(text.utf8), to: 2, acknowledging: nil)
    }
}

/// Text waiting to be written, in order; only the first piece is written, a pipe buffer
/// at a time, when its descriptor can take it.
private struct PendingOutput {
    private var pieces: [(descriptor: Int32, bytes: [UInt8], written: Int, acknowledgement: (generation: Int, message: Int64)?)] = []

    var descriptor: Int32? { pieces.first?.descriptor }

    /// Whether a piece of generation `number`'s output is waiting: that worker waits for it.
    func holds(_ generation: Int) -> Bool { pieces.contains { $0.acknowledgement?.generation == generation } }

    mutating func append(_ bytes: [UInt8], to descriptor: Int32, acknowledging message: (generation: Int, message: Int64)?) {
        pieces.append((descriptor, bytes, 0, message))
    }

    /// Writes some of the first piece; returns its acknowledgement when it is done.
    mutating func writeHead() -> (generation: Int, message: Int64)? {
        guard var head = pieces.first else { return nil }
        let written = DescriptorWriter.writeSome(head.bytes, from: head.written, to: head.descriptor)
        head.written = written.map { head.written + $0 } ?? head.bytes.count
        guard head.written >= head.bytes.count else {
            pieces[0] = head
            return nil
        }
        pieces.removeFirst()
        return head.acknowledgement
    }

    /// Writes everything, as slowly as its readers read; gives up on the rest only when
    /// nothing could be written for `stall` nanoseconds (a reader that stopped reading).
    mutating func drain(givingUpAfter stall: Int64) {
        var progressAt = MonotonicClock.now
        while let descriptor {
            let left = progressAt + stall - MonotonicClock.now
            guard left > 0 else { return }
            let ready = Poll.wait(for: [Poll.Interest(descriptor: descriptor, writing: true)], timeout: left)
            guard ready.first == true else { continue }
            let before = (pieces.count, pieces.first?.written)
            _ = writeHead()
            if pieces.count != before.0 || pieces.first?.written != before.1 { progressAt = MonotonicClock.now }
        }
    }
}
