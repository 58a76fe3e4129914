import Synchronization

/// The worker's side of supervision: it tells the supervisor what the worker is doing and
/// until when it may, hands it the host's own output and notifications, and takes its
/// requests. Everything goes through the ``SupervisionPage``; the worker wakes the
/// supervisor with a signal, never through a file descriptor that plugin code could close.
final class WorkerLink: Sendable {
    /// What the supervisor asks of the worker.
    enum Request: Sendable, Equatable {
        /// SIGINT or SIGTERM reached the host: stop.
        case stop(signal: Signal)
        /// SIGHUP reached the host: reload.
        case reload
        /// A `*.so` file in a plugin directory changed (`--watch`): rescan.
        case rescan
        /// The supervisor's word to an upgrade's new worker that reported and waits.
        case verdict(CandidateVerdict)
        /// Remove, in place, the running plugins whose files are gone, with those that
        /// require them.
        case removeGone
    }

    let page: SupervisionPage
    private let supervisor: ProcessID?
    private let systemdListens: Bool
    private let writing = Mutex(())

    /// - Parameters:
    ///   - page: The page shared with the supervisor.
    ///   - supervisor: The supervisor's process id; `nil` for none (in tests), which
    ///     nobody wakes and whose output nobody writes.
    ///   - systemdListens: Whether systemd hears the host's notifications; when it does
    ///     not, those only systemd needs are not handed over.
    init(page: SupervisionPage, supervisor: ProcessID?, systemdListens: Bool = false) {
        self.page = page
        self.supervisor = supervisor
        self.systemdListens = systemdListens
    }

    /// Makes the calling thread the worker's driving thread: it runs only host code, the
    /// supervisor asks it what holds it up, and a crash on it is the host's.
    func becomeDriver() {
        FatalSignals.installAlternateStack()
        if let slot = page.claimSlot(for: ThreadIdentity.current) { page.setSlot(slot, plugin: nil, phase: .unknown) }
        page.driverThread = ProcessControl.currentThread
    }

    /// Tells the supervisor what the worker as a whole is doing now.
    func enter(_ phase: WorkerPhase) {
        page.workerPhase = phase
    }

    /// Publishes more plugins, in bootstrap order, numbered after those published before.
    ///
    /// - Returns: The number of the first, or `nil` when there are more than the page can
    ///   track.
    func publish(_ plugins: [SupervisionPage.PluginEntry]) -> PluginNumber? {
        page.publish(plugins)
    }

    /// Records that `plugin` runs now (its component bootstrapped), and whether it runs a
    /// service: what the supervisor needs to decide whether a restart can serve anyone.
    func recordRunning(_ plugin: PluginNumber, providesService: Bool) {
        page.setState(of: plugin, .running, providesService: providesService)
    }

    /// Records that `plugin` was removed while the host ran.
    func recordRemoved(_ plugin: PluginNumber) {
        page.setState(of: plugin, .removed)
    }

    /// Records the plugin whose failure (an error, not a crash) makes the worker give up.
    func recordFailure(of plugin: PluginNumber) {
        if page.failedPlugin == nil { page.failedPlugin = plugin }
    }

    /// Records that `plugin` (`nil`: the host) begins `phase`, which may last `timeout`
    /// (`nil`: without limit).
    func begin(_ phase: Phase, of plugin: PluginNumber?, within timeout: Duration?, policy: OverrunPolicy) {
        let started = MonotonicInstant.now
        let step = SupervisionPage.Step(phase: phase, policy: policy, started: started, deadline: timeout.map { started + $0 } ?? .distantFuture)
        if page.begin(step, of: plugin) { wakeSupervisor() }
    }

    /// Records that the current step of `plugin` (`nil`: the host) is over.
    func end(stepOf plugin: PluginNumber?) {
        page.end(stepOf: plugin)
    }

    /// Records where `plugin`'s executable code is mapped, for crash reports.
    func recordCode(of plugin: PluginNumber, at range: Range<UInt64>) {
        page.setCode(of: plugin, range)
    }

    /// Has the supervisor write `text` to its standard output or error, and waits until
    /// it has. What plugins left in C's buffered streams is flushed first, so that the
    /// text appears after it.
    func write(_ text: String, to stream: Console.Stream) {
        guard !text.isEmpty, supervisor != nil else { return }
        writing.withLock { _ in
            StandardStreams.flushIfUnlocked()
            let bytes = Array(text.utf8)
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + SupervisionPage.outputCapacity)
                let piece = Array(bytes[start..<end])
                page.hand(stream == .output ? .output(piece) : .error(piece), wake: wakeSupervisor)
                start = end
            }
        }
    }

    /// Has the supervisor act on `notification` and tell systemd, when the host runs under
    /// systemd; does not wait for it to.
    func notify(_ notification: ServiceNotification) {
        guard supervisor != nil, systemdListens || !notification.isForSystemdOnly else { return }
        writing.withLock { _ in _ = page.post(.notification(notification), wake: wakeSupervisor) }
    }

    /// Tells the supervisor `news`; does not wait for it to be taken.
    ///
    /// - Returns: Whether the supervisor will hear it: not without one, nor news larger than
    ///   the page's message.
    @discardableResult
    func tell(_ news: WorkerNews) -> Bool {
        guard supervisor != nil else { return false }
        let bytes = news.encoded
        guard bytes.count <= SupervisionPage.outputCapacity else { return false }
        writing.withLock { _ in _ = page.post(.news(bytes), wake: wakeSupervisor) }
        return true
    }

    /// Records the outcome of a health check for systemd's watchdog: good until `deadline`,
    /// or bad (`nil`).
    func reportHealth(goodUntil deadline: MonotonicInstant?) {
        page.healthyUntil = deadline
    }

    /// Asks the supervisor for a new generation, which takes up plugin files that changed.
    func requestUpgrade() {
        page.raise(.upgrade)
        wakeSupervisor()
    }

    /// Whether the supervisor has passed on a stop request.
    var stopRequested: Bool { page.count(.stop) > 0 }

    /// Starts a thread that calls `handler` with each request of the supervisor: the first
    /// stop request (the supervisor handles a second one itself), every reload request, a
    /// rescan request for any number of directory changes since the last, and the request
    /// to proceed.
    func listen(_ handler: @escaping @Sendable (Request) -> Void) {
        startDetachedThread { [page] in
            _ = page.claimSlot(for: ThreadIdentity.current).map { page.setSlot($0, plugin: nil, phase: .unknown) }
            FatalSignals.installAlternateStack()
            var stops: Int32 = 0
            var reloads: Int32 = 0
            var rescans: Int32 = 0
            var verdicts: Int32 = 0
            var removals: Int32 = 0
            while true {
                if page.count(.stop) > stops {
                    if stops == 0 { handler(.stop(signal: page.stopSignal)) }
                    stops = page.count(.stop)
                }
                while page.count(.reload) > reloads {
                    reloads += 1
                    handler(.reload)
                }
                if page.count(.rescan) > rescans {
                    rescans = page.count(.rescan)
                    handler(.rescan)
                }
                if page.count(.verdict) > verdicts {
                    verdicts = page.count(.verdict)
                    handler(.verdict(page.verdict))
                }
                if page.count(.removeGone) > removals {
                    removals = page.count(.removeGone)
                    handler(.removeGone)
                }
                page.waitForRequest()
            }
        }
    }

    /// Ends the worker with `status`: the supervisor is told first, so that it knows the
    /// host, not a plugin, ended the process; then `exit` runs the `atexit` handlers, within
    /// `limit` (the supervisor ends the worker when they take longer).
    func exit(_ status: ExitStatus, within limit: Duration?) -> Never {
        enter(.exiting)
        begin(.exit, of: nil, within: limit, policy: .endHost)
        page.recordIntendedExit(status.rawValue)
        ExitTrap.hostExits()
        StandardStreams.flushIfUnlocked()
        ProcessControl.exit(status.rawValue)
    }

    /// Wakes the supervisor: something in the page needs its attention now.
    func wakeSupervisor() {
        if let supervisor { ProcessControl.send(.wake, to: supervisor) }
    }
}
