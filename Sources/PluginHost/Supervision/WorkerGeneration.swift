/// One worker process, as its supervisor sees it: the page they share, the plan it was
/// started with, and what the supervisor has seen of it so far.
///
/// Only the supervisor's single thread uses it.
final class WorkerGeneration {
    let number: Int
    let process: Int32
    let page: SupervisionPage
    let plan: GenerationPlan
    /// When it was started (``MonotonicClock`` nanoseconds).
    let startedAt: Int64

    /// How it ended, once it has, as judged when it was reaped.
    var ending: WorkerEnding?
    /// Set when the supervisor ended it at a deadline: how the operator is told.
    var verdict: WorkerEnding?
    /// Whether the supervisor sent it SIGKILL.
    var killed = false
    /// When the supervisor asked it to stop; `nil` while it was not.
    var stopAskedAt: Int64?
    /// The last message taken from its page.
    var messagesTaken: Int64 = 0
    /// Its stop and reload signals forwarded to the supervisor, and upgrade requests, seen so far.
    var forwardedStops: Int32 = 0
    var forwardedReloads: Int32 = 0
    var upgradeRequests: Int32 = 0
    /// Whether it was seen waiting to bootstrap (``WorkerPhase/prepared``).
    var sawPrepared = false
    /// Since when a signal has kept it stopped (SIGSTOP), and which; `nil` while it runs.
    var stopped: (since: Int64, signal: Int32)?
    /// Its progress counter, and when it last changed, while it stops.
    var lastProgress: Int32 = -1
    var lastProgressAt: Int64 = 0

    var hasEnded: Bool { ending != nil }

    private init(number: Int, process: Int32, page: SupervisionPage, plan: GenerationPlan) {
        self.number = number
        self.process = process
        self.page = page
        self.plan = plan
        startedAt = MonotonicClock.now
    }

    /// Forks a worker that runs `run` with its link to the supervisor and `plan`.
    ///
    /// In the worker, `run` runs on a new thread, the *driving* thread: the thread that
    /// called `fork` keeps the Swift runtime's record of its parent's thread id, which
    /// breaks the runtime's own locks once another thread contends for one it holds, so it
    /// parks for good instead.
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
        _ plan: GenerationPlan, signals: (readEnd: Int32, handled: [Int32]), closing: [Int32], descriptorLimit: UInt64,
        crashStatus: ExitStatus, run: @escaping @Sendable (WorkerLink, GenerationPlan) -> Never
    ) throws(SystemError) -> WorkerGeneration {
        let page = try SupervisionPage()
        let supervisor = ProcessControl.current
        page.supervisorProcess.store(supervisor)
        let worker = try ProcessControl.forkBlockingSignals()
        if worker == 0 {
            SignalPipe.uninstall(readEnd: signals.readEnd, signals: signals.handled)
            closeDescriptors(closing)
            DescriptorLimit.restore(soft: descriptorLimit)
            StandardStreams.makeOutputLineBuffered()
            ProcessControl.makeProcessGroupLeader(ProcessControl.current)
            ProcessControl.endWithParent(supervisor)
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
        return WorkerGeneration(number: plan.number, process: worker, page: page, plan: plan)
    }

    /// Asks the worker to stop (drain, stop the services, shut down, exit), and wakes it
    /// if it was stopped.
    func askToStop(signal: Int32) {
        guard stopAskedAt == nil else { return }
        stopAskedAt = MonotonicClock.now
        lastProgress = page.progress
        lastProgressAt = MonotonicClock.now
        page.stopSignal = signal
        page.raise(.stop)
        ProcessControl.send(Signals.resume, toGroup: process)
    }

    /// Ends the worker and every process of its group at once.
    func kill() {
        killed = true
        ProcessControl.send(Signals.kill, toGroup: process)
        ProcessControl.send(Signals.kill, to: process)
    }

    /// The plugins it runs now (bootstrapped, not removed), by number.
    var runningPlugins: [PluginNumber] {
        page.plugins.filter { page.state(of: $0).state == .running }
    }

    /// `plugin` and the plugins it published that require it, directly or not.
    func pluginsRequiring(_ culprits: [PluginNumber]) -> [PluginNumber] {
        var leaving = Set(culprits)
        for plugin in page.plugins where !leaving.contains(plugin) {
            // Published in bootstrap order: requirements come first.
            if page.entry(of: plugin).requires.contains(where: leaving.contains) { leaving.insert(plugin) }
        }
        return page.plugins.filter(leaving.contains)
    }
}
