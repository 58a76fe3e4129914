/// The worker process of one generation, as the supervisor's driver sees it: its process,
/// the page they share, and how much of what the worker said has been turned into events.
///
/// Only the supervisor's single thread uses it. It decides nothing: what happens to the
/// generation is the state machine's ``Generation``.
final class WorkerProcess {
    let generation: Int
    let process: ProcessID
    let page: SupervisionPage

    /// The last message taken from its page.
    var messagesTaken: Int64 = 0
    /// Its stop and reload signals forwarded to the supervisor, and upgrade requests, turned
    /// into events so far.
    var forwardedStops: Int32 = 0
    var forwardedReloads: Int32 = 0
    var upgradeRequests: Int32 = 0
    /// Its last health check as reported: good until, or `nil` for bad (and before any).
    var healthReported: MonotonicInstant?
    /// Whether a step past its limit was reported: the machine ends the worker.
    var overrunReported = false
    /// Whether a signal keeps it stopped, as reported.
    var suspended = false
    /// Whether the supervisor sent it SIGKILL.
    var killed = false
    /// What its driving thread was found doing before it was killed, when the machine asked.
    var stall: Stall?
    /// The supervisor's end of the channel of its hand-offs: what it is handed before it
    /// bootstraps, and what it hands over as it stops.
    var handOff: DescriptorChannel?

    private init(generation: Int, process: ProcessID, page: SupervisionPage) {
        self.generation = generation
        self.process = process
        self.page = page
    }

    /// Forks a worker that runs `run` with its link to the supervisor and `plan`.
    ///
    /// In the worker, `run` runs on a new thread, the *driving* thread: the thread that
    /// called `fork` keeps the Swift runtime's record of its parent's thread id, which
    /// breaks the runtime's own locks once another thread contends for one it holds, so it
    /// parks for good instead. The worker adopts the orphans of the processes its plugins
    /// start (a daemon that calls `setsid` and forks again is one), so that while it lives
    /// they are its own, and when it ends they pass to the supervisor, which ends them.
    ///
    /// - Parameters:
    ///   - signals: The supervisor's signal pipe and the signals it handles, which the
    ///     worker must not inherit.
    ///   - closing: Descriptors of the supervisor's own that the worker must not keep.
    ///   - descriptorLimit: The soft limit of open descriptors the host started with,
    ///     which the worker gets back.
    /// - Throws: ``SystemError`` when the page cannot be mapped or the system refuses
    ///   another process.
    static func start(
        _ plan: WorkerPlan, signals: (readEnd: FileDescriptor, handled: [Signal]), closing: [FileDescriptor],
        descriptorLimit: UInt64, crashStatus: ExitStatus, run: @escaping @Sendable (WorkerLink, WorkerPlan) -> Never
    ) throws(SystemError) -> WorkerProcess {
        let page = try SupervisionPage()
        let supervisor = ProcessControl.current
        page.supervisorProcess = supervisor
        let worker: ProcessID
        do {
            worker = try ProcessControl.forkBlockingSignals()
        } catch {
            page.unmap()
            throw error
        }
        if worker.rawValue == 0 {
            SignalPipe.uninstall(readEnd: signals.readEnd, signals: signals.handled)
            for descriptor in closing { descriptor.close() }
            DescriptorLimit.restore(soft: descriptorLimit)
            // Room for each plugin file the worker keeps open, and as many again for its own
            // and its plugins' descriptors, while the forked thread is the only one.
            DescriptorTable.reserve(UInt64(LoadedFiles.most) * 2)
            StandardStreams.makeOutputLineBuffered()
            ProcessControl.makeProcessGroupLeader(ProcessControl.current)
            ProcessControl.endWithParent(supervisor)
            ProcessControl.adoptOrphans()
            WorkerRecords.install(page: page, supervisor: supervisor, crashStatus: crashStatus)
            let link = WorkerLink(page: page, supervisor: supervisor, systemdListens: plan.systemdListens)
            startDetachedThread {
                link.becomeDriver()
                run(link, plan)
            }
            ProcessControl.parkCallingThread()
        }
        ProcessControl.makeProcessGroupLeader(worker)
        ProcessControl.unblockAllSignals()
        return WorkerProcess(generation: plan.number, process: worker, page: page)
    }

    /// Passes `request` to the worker; a stop request also resumes it, if a signal stopped it.
    func ask(_ request: WorkerLink.Request) {
        switch request {
        case .stop(let signal):
            page.stopSignal = signal
            page.raise(.stop)
            ProcessControl.send(.resume, toGroup: process)
        case .reload: page.raise(.reload)
        case .rescan: page.raise(.rescan)
        case .verdict(let verdict):
            page.verdict = verdict
            page.raise(.verdict)
        case .removeGone: page.raise(.removeGone)
        }
    }

    /// Ends the worker and every process of its group at once.
    func kill() {
        killed = true
        ProcessControl.send(.kill, toGroup: process)
        ProcessControl.send(.kill, to: process)
    }

    /// Its plugins, as it published them so far.
    var plugins: [PublishedPlugin] {
        let entries = page.plugins.map(page.entry(of:))
        return entries.enumerated().map { number, entry in
            let (state, providesService) = page.state(of: PluginNumber(number))
            return PublishedPlugin(
                name: entry.name, file: entry.file, version: entry.version, identity: entry.identity,
                requires: entry.requires.compactMap { entries.indices.contains($0.index) ? entries[$0.index].name : nil },
                state: state, providesService: providesService)
        }
    }

    /// What can be known of how the worker ended, `termination` said by its wait status:
    /// what its handlers recorded, what ran, and which loaded plugin files were written in
    /// place since they were loaded.
    func evidence(of termination: Termination) -> EndingEvidence {
        let plugins = plugins
        var seen = Set<PluginNumber>()
        var running = page.pluginCodeRunning().filter { seen.insert($0.plugin).inserted }.sorted { $0.plugin < $1.plugin }
            .map { RunningCode(plugin: $0.plugin, phase: $0.phase) }
        if running.isEmpty {
            running = page.plugins.compactMap { plugin in page.step(of: plugin).map { RunningCode(plugin: plugin, phase: $0.phase) } }
        }
        // A fact of the files, whatever the end: the machine decides what it means.
        let rewritten = plugins.indices.map(PluginNumber.init).filter { number in
            guard page.hasCode(number), let loaded = plugins[number.index].identity,
                let now = try? FileStatus(path: plugins[number.index].file).identity
            else { return false }
            return now.device == loaded.device && now.inode == loaded.inode && !now.hasSameContents(as: loaded)
        }
        return EndingEvidence(
            termination: termination, intendedExit: page.intendedExit, crash: page.crash, exitCall: page.exitCall, running: running,
            workerPhase: page.workerPhase, failedPlugin: page.failedPlugin, plugins: plugins, rewrittenInPlace: rewritten, stall: stall)
    }

    /// The step of the worker past its limit at `now`, if any: the one with the earliest limit.
    func overrun(at now: MonotonicInstant) -> (owner: PluginNumber?, step: SupervisionPage.Step)? {
        guard let earliest = earliestStep(), now >= earliest.step.limit else { return nil }
        return earliest
    }

    /// The earliest limit of the worker's steps, if any has one.
    var nextStepLimit: MonotonicInstant? { earliestStep()?.step.limit }

    /// The last scan of the steps, and the progress count it was made at.
    private var scan: (progress: Int32, earliest: (owner: PluginNumber?, step: SupervisionPage.Step)?)?

    /// The step with the earliest limit, of those that have one. The steps are read again only
    /// when the worker began or ended one since the last time (its progress count moved): the
    /// supervisor looks at every turn of its loop, and a worker has thousands of plugins.
    private func earliestStep() -> (owner: PluginNumber?, step: SupervisionPage.Step)? {
        let progress = page.progress
        if let scan, scan.progress == progress { return scan.earliest }
        var earliest: (owner: PluginNumber?, step: SupervisionPage.Step)?
        func consider(_ owner: PluginNumber?) {
            guard let step = page.step(of: owner), step.isLimited, step.limit < earliest?.step.limit ?? .distantFuture else { return }
            earliest = (owner, step)
        }
        consider(nil)
        for plugin in 0..<page.pluginCount { consider(PluginNumber(plugin)) }
        scan = (progress, earliest)
        return earliest
    }

    /// `plugin Domain (FILE) was bootstrapping`, for each plugin whose code runs now.
    var runningActivities: [String] {
        let plugins = page.plugins.map(page.entry(of:))
        return page.pluginCodeRunning().map { running in
            let label = plugins.indices.contains(running.plugin.index) ? "\(plugins[running.plugin.index].name) (\(plugins[running.plugin.index].file))" : running.plugin.description
            return "plugin \(label) was \(running.phase.activity)"
        }
    }
}
