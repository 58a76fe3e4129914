import Synchronization

/// The worker's side of supervision: it tells the supervisor what the worker is doing and
/// until when it may, hands it the host's own output to print, and takes its requests
/// (stop, reload). Everything goes through the ``SupervisionPage``; the worker wakes the
/// supervisor with a signal, never through a file descriptor that plugin code could close.
final class WorkerLink: Sendable {
    /// What the supervisor asks of the worker.
    enum Request: Sendable, Equatable {
        /// SIGINT or SIGTERM reached the host: stop.
        case stop(signal: Int32)
        /// SIGHUP reached the host: reload.
        case reload
        /// A `*.so` file in a plugin directory changed (`--watch`): rescan.
        case rescan
    }

    let page: SupervisionPage
    private let supervisor: Int32?
    private let writing = Mutex(())

    /// - Parameters:
    ///   - page: The page shared with the supervisor.
    ///   - supervisor: The supervisor's process id; `nil` for none (in tests), which
    ///     nobody wakes and whose output nobody writes.
    init(page: SupervisionPage, supervisor: Int32?) {
        self.page = page
        self.supervisor = supervisor
    }

    /// Makes the calling thread the worker's driving thread: it runs only host code, the
    /// supervisor asks it what holds it up, and a crash on it is the host's.
    func becomeDriver() {
        FatalSignals.installAlternateStack()
        if let slot = page.claimSlot() { page.setSlot(slot, plugin: -1, phase: 0) }
        page.driverThread.store(ProcessControl.currentThread)
    }

    /// Tells the supervisor what the worker as a whole is doing now.
    func enter(_ phase: WorkerPhase) {
        page.workerPhase.store(phase.rawValue)
    }

    /// Publishes the labels of more plugins, in bootstrap order, numbered after those
    /// published before; a plugin is its number from now on.
    ///
    /// - Returns: The number of the first, or `nil` when there are more than the page can
    ///   track.
    func publish(plugins labels: [String]) -> Int? {
        page.publish(labels: labels)
    }

    /// Records that `plugin` (`nil`: the host) begins `phase`, which may last `timeout`
    /// (`nil`: without limit).
    func begin(_ phase: Phase, of plugin: Int?, within timeout: Duration?, policy: OverrunPolicy) {
        let started = MonotonicClock.now
        let (deadline, overflow) = started.addingReportingOverflow(timeout.map(MonotonicClock.nanoseconds) ?? .max)
        let step = SupervisionPage.Step(
            phase: phase.rawValue, policy: policy.rawValue, started: started, deadline: overflow ? .max : deadline)
        if page.begin(step, of: plugin, limit: policy.limit(forDeadline: step.deadline)) { wakeSupervisor() }
    }

    /// Records that the current step of `plugin` (`nil`: the host) is over.
    func end(stepOf plugin: Int?) {
        page.end(stepOf: plugin)
    }

    /// Records where plugin `index`'s executable code is mapped, for crash reports.
    func recordCode(of index: Int, at range: Range<UInt64>) {
        page.setCode(of: index, range)
    }

    /// Has the supervisor write `text` to its standard output or error, and waits until
    /// it has. What plugins left in C's buffered streams is flushed first, so that the
    /// text appears after it.
    func write(_ text: String, to stream: SupervisionPage.Stream) {
        guard !text.isEmpty, supervisor != nil else { return }
        writing.withLock { _ in
            StandardStreams.flushIfUnlocked()
            let bytes = Array(text.utf8)
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + SupervisionPage.outputCapacity)
                page.hand(bytes[start..<end], to: stream, wake: wakeSupervisor)
                start = end
            }
        }
    }

    /// Has the supervisor send `message` to systemd's notification socket, when the host
    /// runs under systemd.
    func notify(_ message: String) {
        write(message, to: .notification)
    }

    /// Records the outcome of a health check for systemd's watchdog: good until `deadline`
    /// (``MonotonicClock`` nanoseconds), or bad (`nil`).
    func reportHealth(goodUntil deadline: Int64?) {
        page.healthyUntil.store(deadline ?? 0)
    }

    /// Whether the supervisor has passed on a stop request.
    var stopRequested: Bool { page.stopCount.load() > 0 }

    /// Starts a thread that calls `handler` with each request of the supervisor: the first
    /// stop request (the supervisor handles a second one itself), every reload request, and
    /// a rescan request for any number of directory changes since the last.
    func listen(_ handler: @escaping @Sendable (Request) -> Void) {
        startDetachedThread { [page] in
            _ = page.claimSlot().map { page.setSlot($0, plugin: -1, phase: 0) }
            FatalSignals.installAlternateStack()
            var stops: Int32 = 0
            var reloads: Int32 = 0
            var rescans: Int32 = 0
            while true {
                if page.stopCount.load() > stops {
                    if stops == 0 { handler(.stop(signal: page.stopSignal.load())) }
                    stops = page.stopCount.load()
                }
                while page.reloadCount.load() > reloads {
                    reloads += 1
                    handler(.reload)
                }
                if page.rescanCount.load() > rescans {
                    rescans = page.rescanCount.load()
                    handler(.rescan)
                }
                page.waitForCommand()
            }
        }
    }

    /// Ends the worker with `status`: the supervisor is told first, so that it knows the
    /// host, not a plugin, ended the process; then `exit` runs the `atexit` handlers, within
    /// `limit` (the supervisor ends the worker when they take longer).
    func exit(_ status: ExitStatus, within limit: Duration?) -> Never {
        enter(.exiting)
        begin(.exit, of: nil, within: limit, policy: .endHost)
        ExitTrap.hostExits(with: status.rawValue)
        StandardStreams.flushIfUnlocked()
        ProcessControl.exit(status.rawValue)
    }

    /// Wakes the supervisor: something in the page needs its attention now.
    func wakeSupervisor() {
        if let supervisor { ProcessControl.send(Supervisor.wakeSignal, to: supervisor) }
    }
}
