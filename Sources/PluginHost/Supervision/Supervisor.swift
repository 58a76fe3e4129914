/// The parent process of a run: it forks the worker, which loads and runs the plugins, and
/// keeps for itself everything that must work whatever plugin code does to the worker: the
/// signals, the deadlines, the host's output, the exit status and the clean-up.
///
/// ```
///  supervisor ── fork ──▶ worker (own process group): survey, load, bootstrap, run, shutdown
///      │   ◀── supervision page: steps and deadlines, crash and exit records, output, health ──┘
///      │   ──▶ requests: stop (SIGINT, SIGTERM), reload (SIGHUP), rescan (--watch)
///      │   ──▶ systemd: the worker's notifications, STOPPING=1, WATCHDOG=1 while healthy
///      └─ when the worker ends: judge how, end what it left running, print, exit
/// ```
///
/// The supervisor runs no plugin code and loads no plugin, so nothing a plugin does to the
/// worker's signal handlers, masks, file descriptors, locks or threads can keep it from
/// ending the run in time with a documented status and the culprit's name. It waits in
/// `poll` on a pipe its own signal handlers write to, and writes output only when `poll`
/// says a descriptor can take it, so a reader that stops reading cannot stall it.
enum Supervisor {
    /// The signal with which the worker wakes the supervisor.
    static let wakeSignal = Signals.wake

    /// Forks the worker, which runs `run` with its link to the supervisor; the
    /// supervisor supervises until the worker has ended, then exits with the run's status.
    ///
    /// In the worker, `run` runs on a new thread, the *driving* thread: the thread that
    /// called `fork` keeps the Swift runtime's record of its parent's thread id, which
    /// breaks the runtime's own locks once another thread contends for one it holds, so it
    /// parks for good instead.
    ///
    /// - Parameters:
    ///   - stopLimit: How long the worker may go without progress while it stops
    ///     (`--shutdown-timeout`); `nil` for no limit.
    ///   - crashStatus: The worker's status after a crash or a plugin's `exit()`.
    ///   - systemd: Where to send systemd's notifications, and how often its watchdog
    ///     wants to hear from the host.
    ///   - watching: Directories whose `*.so` files the worker rescans when they change.
    static func start(
        stopLimit: Duration?, crashStatus: ExitStatus, systemd: SystemdService, watching: [String],
        worker run: @escaping @Sendable (WorkerLink) -> Never
    ) -> Never {
        let page: SupervisionPage
        let signals: Int32
        let worker: Int32
        let handled = [Signals.interrupt, Signals.terminate, Signals.hangUp, Signals.childEnded, wakeSignal]
        do {
            page = try SupervisionPage()
            page.supervisorProcess.store(ProcessControl.current)
            signals = try SignalPipe.install(for: handled)
            worker = try ProcessControl.forkBlockingSignals()
        } catch {
            StandardStreams.write("plugin-host: error: cannot start the worker process: \(error)\n", to: 2)
            ProcessControl.exitImmediately(ExitStatus.failure.rawValue)
        }
        if worker == 0 {
            let parent = page.supervisorProcess.load()
            SignalPipe.uninstall(readEnd: signals, signals: handled)
            ProcessControl.makeProcessGroupLeader(ProcessControl.current)
            ProcessControl.endWithParent(parent)
            FatalSignals.install(recordingIn: page, exitStatus: crashStatus.rawValue)
            ExitTrap.install(recordingIn: page, exitStatus: crashStatus.rawValue)
            StraySignals.install(forwardingTo: page, supervisor: parent, wake: wakeSignal)
            ProbeSignal.install(recordingIn: page)
            let link = WorkerLink(page: page, supervisor: parent)
            startDetachedThread {
                link.becomeDriver()
                run(link)
            }
            ProcessControl.parkCallingThread()
        }
        ProcessControl.makeProcessGroupLeader(worker)
        ProcessControl.adoptOrphans()
        ProcessControl.unblockAllSignals()
        var watch = Watch(page: page, worker: worker, signals: signals, stopLimit: stopLimit.map(MonotonicClock.nanoseconds))
        watch.systemd = systemd
        watch.pingEvery = systemd.watchdog.map { $0 / 2 }
        watch.directories = watching.isEmpty ? nil : DirectoryWatch(directories: watching)
        ProcessControl.exitImmediately(watch.run().rawValue)
    }
}

/// The supervisor's loop over one worker.
private struct Watch {
    let page: SupervisionPage
    let worker: Int32
    let signals: Int32
    let stopLimit: Int64?
    var output = PendingOutput()
    /// The last output of the worker taken from the page.
    var outputTaken: Int64 = 0
    var stops = 0
    /// The stop and reload signals forwarded by the worker, handled so far.
    var forwardedStops: Int32 = 0
    var forwardedReloads: Int32 = 0
    /// Set when the supervisor ended the worker: the status to exit with.
    var ended: ExitStatus?
    var termination: Termination?
    /// The worker's progress counter, and when it last changed, while it stops.
    var lastProgress: Int32 = -1
    var lastProgressAt: Int64 = 0
    var systemd = SystemdService(socket: nil, watchdog: nil)
    /// How often to ping systemd's watchdog, and when next.
    var pingEvery: Int64?
    var nextPing: Int64 = 0
    var stoppingSent = false
    /// The plugin directories watched for changes, and when to tell the worker to rescan:
    /// a moment after the last change, so that a file being copied in is complete.
    var directories: DirectoryWatch?
    var rescanAt: Int64?

    init(page: SupervisionPage, worker: Int32, signals: Int32, stopLimit: Int64?) {
        self.page = page
        self.worker = worker
        self.signals = signals
        self.stopLimit = stopLimit
    }

    mutating func run() -> ExitStatus {
        while termination == nil {
            page.supervisorWakesAt.store(0)
            for signal in SignalPipe.received(on: signals) { handle(signal) }
            handleForwardedSignals()
            if termination == nil, let reaped = ProcessControl.reap(worker) { termination = reaped }
            takeOutput()
            guard termination == nil else { break }
            if ended == nil { checkDeadlines() }
            pingWatchdog()
            requestRescan()
            wait(until: nextWake())
        }
        takeOutput()
        let status = ended ?? judge()
        endLeftovers()
        output.drain(within: 1_000_000_000)
        return status
    }

    // MARK: Signals

    private mutating func handle(_ signal: Int32) {
        switch signal {
        case Signals.childEnded:
            if termination == nil { termination = ProcessControl.reap(worker) }
        case Signals.interrupt, Signals.terminate:
            stops += 1
            let name = FatalSignals.name(of: signal)
            if stops == 1 {
                say("plugin-host: received \(name); shutting down (send it again to exit at once)\n")
                notifyStopping("STATUS=Stopping (received \(name))")
                page.stopSignal.store(signal)
                page.stopCount.store(1)
                page.postCommand()
                ProcessControl.send(Signals.resume, toGroup: worker)
                lastProgress = page.progress.load()
                lastProgressAt = MonotonicClock.now
            } else if ended == nil {
                say("plugin-host: received \(name) again; exiting at once without finishing the shutdown\n")
                end(with: ExitStatus(rawValue: 128 + signal))
            }
        case Signals.hangUp:
            page.reloadCount.store(page.reloadCount.load() + 1)
            page.postCommand()
        default:
            break
        }
    }

    /// SIGINT, SIGTERM and SIGHUP sent to the worker itself: a stop counts only when no
    /// stop is under way (a signal to the whole service reaches both processes at once).
    private mutating func handleForwardedSignals() {
        let forwarded = page.forwarded
        if forwarded.stops > forwardedStops {
            forwardedStops = forwarded.stops
            if stops == 0 { handle(forwarded.stopSignal) }
        }
        while forwarded.reloads > forwardedReloads {
            forwardedReloads += 1
            handle(Signals.hangUp)
        }
    }

    // MARK: Deadlines

    /// Ends the worker when a step overran: at its deadline when the worker cannot be
    /// trusted to go on, a grace period later when the worker should have gone on alone.
    private mutating func checkDeadlines() {
        let now = MonotonicClock.now
        for plugin in Self.stepOwners(page) {
            guard let step = page.step(of: plugin), step.deadline != .max, now >= limit(of: step) else { continue }
            let phase = Phase(rawValue: step.phase) ?? .unknown
            let allowed = TextFormat.seconds(nanoseconds: step.deadline - step.started)
            if let plugin {
                let label = "plugin \(page.label(of: plugin))"
                if step.policy == OverrunPolicy.endHost.rawValue {
                    say("plugin-host: error: \(label) timed out during \(phase): still running after \(allowed) (--timeout); "
                        + "stopped the host without waiting for it\n")
                } else {
                    say("plugin-host: error: \(label) did not finish its \(phase) within \(allowed), and the host was stuck behind it "
                        + "for another \(TextFormat.seconds(nanoseconds: OverrunPolicy.grace)); stopped the host without waiting for it\n")
                }
            } else {
                say("plugin-host: error: plugin-host did not finish its \(phase) within \(allowed): \(stuckWorkerCulprit()); "
                    + "stopped it without waiting\n")
            }
            end(with: .timedOut)
            return
        }
        guard stops > 0, let stopLimit else { return }
        let progress = page.progress.load()
        if progress != lastProgress {
            lastProgress = progress
            lastProgressAt = now
        } else if !anyStepActive, now - lastProgressAt >= stopLimit + OverrunPolicy.grace {
            say("plugin-host: error: plugin-host did not finish stopping: it made no progress for "
                + "\(TextFormat.seconds(nanoseconds: now - lastProgressAt)) (--shutdown-timeout); \(stuckWorkerCulprit()); "
                + "stopped it without waiting\n")
            end(with: .timedOut)
        }
    }

    private func limit(of step: SupervisionPage.Step) -> Int64 {
        (OverrunPolicy(rawValue: step.policy) ?? .endHost).limit(forDeadline: step.deadline)
    }

    private var anyStepActive: Bool {
        Self.stepOwners(page).contains { page.step(of: $0) != nil }
    }

    /// Whose steps the page can hold: the host's (`nil`), then each plugin's.
    private static func stepOwners(_ page: SupervisionPage) -> some Sequence<Int?> {
        (-1..<page.pluginCount).lazy.map { $0 < 0 ? nil : $0 }
    }

    /// What holds up the worker's driving thread, as far as can be told from outside.
    private func stuckWorkerCulprit() -> String {
        if output.holdsWorkerOutput { return "its output is not being read" }
        guard let stall = ProbeSignal.ask(worker: worker, page: page), stall.culprit >= 0 else {
            return "the host's own thread is blocked (by a lock plugin code holds, or in the C library)"
        }
        return "the host's own thread is stuck in code of plugin \(page.label(of: Int(stall.culprit))), such as an atexit handler"
    }

    /// When the loop must wake by itself next: the earliest limit of a step, or of the
    /// worker's progress while it stops.
    private func nextWake() -> Int64? {
        guard ended == nil else { return 100_000_000 &+ MonotonicClock.now }
        var next = Int64.max
        for plugin in Self.stepOwners(page) {
            if let step = page.step(of: plugin), step.deadline != .max { next = min(next, limit(of: step)) }
        }
        if stops > 0, let stopLimit { next = min(next, lastProgressAt &+ stopLimit &+ OverrunPolicy.grace) }
        if pingEvery != nil { next = min(next, nextPing) }
        if let rescanAt { next = min(next, rescanAt) }
        return next == .max ? nil : next
    }

    /// Publishes when the loop wakes next, so that a worker posting an earlier deadline
    /// signals it, then waits for a signal, for output to be writable, or for that time.
    private mutating func wait(until wake: Int64?) {
        page.supervisorWakesAt.store(wake ?? .max)
        // A step posted while the wake time was being worked out is seen now, or its poster
        // saw the new wake time and signalled.
        if ended == nil, let again = nextWake(), again < (wake ?? .max) {
            page.supervisorWakesAt.store(0)
            return
        }
        var interests = [Poll.Interest(descriptor: signals, writing: false)]
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
        if let outputAt, ready[outputAt], let written = output.writeHead() {
            page.acknowledge(written)
        }
        if let directoriesAt, ready[directoriesAt], directories?.takeChanges() == true {
            rescanAt = MonotonicClock.now + 200_000_000
        }
    }

    // MARK: systemd and --watch

    /// Pings systemd's watchdog when it is time, unless the worker's last health check was
    /// bad or is too old: then systemd restarts the host.
    private mutating func pingWatchdog() {
        guard let pingEvery, ended == nil else { return }
        let now = MonotonicClock.now
        guard now >= nextPing else { return }
        nextPing = now + pingEvery
        let running = WorkerPhase(rawValue: page.workerPhase.load()) == .running
        if !running || page.healthyUntil.load() > now { systemd.notify("WATCHDOG=1") }
    }

    /// Tells the worker to rescan the plugin directories once they have been quiet a moment.
    private mutating func requestRescan() {
        guard let at = rescanAt, MonotonicClock.now >= at else { return }
        rescanAt = nil
        page.rescanCount.store(page.rescanCount.load() + 1)
        page.postCommand()
    }

    /// Tells systemd the host is stopping, once.
    private mutating func notifyStopping(_ status: String) {
        guard !stoppingSent else { return }
        stoppingSent = true
        systemd.notify("STOPPING=1\n" + status)
    }

    // MARK: Output

    private mutating func takeOutput() {
        guard !output.holdsWorkerOutput, let (number, stream, bytes) = page.pendingOutput(after: outputTaken) else { return }
        outputTaken = number
        guard stream != .notification else {
            let message = String(decoding: bytes, as: UTF8.self)
            if message.hasPrefix("STOPPING=1") {
                notifyStopping(String(message.dropFirst("STOPPING=1\n".count)))
            } else {
                systemd.notify(message)
            }
            page.acknowledge(number)
            return
        }
        output.append(bytes, to: stream == .output ? 1 : 2, acknowledging: number)
    }

    /// Queues a line of the supervisor's own for standard error.
    private mutating func say(_ text: String) {
        output.append(Array(text.utf8), to: 2, acknowledging: nil)
    }

    // MARK: The end

    private mutating func end(with status: ExitStatus) {
        ProcessControl.send(Signals.kill, toGroup: worker)
        ProcessControl.send(Signals.kill, to: worker)
        ended = status
    }

    /// How the worker ended, said on standard error when it was not the host's own doing,
    /// and the status to exit with.
    private mutating func judge() -> ExitStatus {
        let ending = WorkerEnding(termination ?? .exited(ExitStatus.crashed.rawValue), page: page)
        if let message = ending.message { say("plugin-host: error: " + message + "\n") }
        return ending.status
    }

    /// Ends every process the worker's plugins started and left running: the worker's
    /// process group, and the orphans adopted from other groups.
    private mutating func endLeftovers() {
        let group = worker
        guard ProcessControl.send(0, toGroup: group) || ProcessControl.reapEnded() else { return }
        var killed: Set<Int32> = []
        let deadline = MonotonicClock.now + 2_000_000_000
        while MonotonicClock.now < deadline {
            let left = ProcessControl.processes(childrenOrGroup: group)
            guard !left.isEmpty else { break }
            for process in left where ProcessControl.send(Signals.kill, to: process) { killed.insert(process) }
            ProcessControl.sleep(nanoseconds: 5_000_000)
            _ = ProcessControl.reapEnded()
        }
        _ = ProcessControl.reapEnded()
        if !killed.isEmpty {
            say("plugin-host: note: ended \(killed.count) process\(killed.count == 1 ? "" : "es") that plugins started and "
                + "left running (\(killed.sorted().map(String.init).joined(separator: ", ")))\n")
        }
    }
}

/// Text waiting to be written, in order; only the first piece is written, a pipe buffer
/// at a time, when its descriptor can take it.
private struct PendingOutput {
    private var pieces: [(descriptor: Int32, bytes: [UInt8], written: Int, acknowledgement: Int64?)] = []

    var descriptor: Int32? { pieces.first?.descriptor }

    /// Whether a piece of the worker's output is waiting: the worker waits for it.
    var holdsWorkerOutput: Bool { pieces.contains { $0.acknowledgement != nil } }

    mutating func append(_ bytes: [UInt8], to descriptor: Int32, acknowledging number: Int64?) {
        pieces.append((descriptor, bytes, 0, number))
    }

    /// Writes some of the first piece; returns its acknowledgement when it is done.
    mutating func writeHead() -> Int64? {
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

    /// Writes what it can within `limit` nanoseconds, then gives up on the rest.
    mutating func drain(within limit: Int64) {
        let deadline = MonotonicClock.now + limit
        while let descriptor, MonotonicClock.now < deadline {
            let ready = Poll.wait(for: [Poll.Interest(descriptor: descriptor, writing: true)], timeout: deadline - MonotonicClock.now)
            guard ready.first == true else { continue }
            _ = writeHead()
        }
    }
}
