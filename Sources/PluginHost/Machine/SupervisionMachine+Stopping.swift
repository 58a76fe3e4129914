/// What the machine knows of the host's stop: which signal asked for it and when, whether
/// systemd was told, and the status the host ends with once every generation stopped.
struct Stopping: Equatable, Sendable {
    /// A stop request: its signal and when it came.
    struct Request: Equatable, Sendable {
        var signal: Signal
        var at: MonotonicInstant
    }

    /// The request that stopped the host.
    var first: Request?
    /// Whether systemd was told the host stops.
    var announced = false
    /// The status the host ends with once every generation has stopped.
    var finalStatus = ExitStatus.success
}

extension SupervisionMachine {
    // MARK: Stop requests

    mutating func stopRequested(by signal: Signal, from source: SignalSource) {
        // A signal to the whole service reaches the worker and the supervisor at once: the
        // worker's copy counts only when the supervisor has not seen one.
        if case .worker = source, stopping.first != nil { return }
        switch state {
        case .finished:
            return
        case .stopping:
            // The same signal delivered twice at once (timeout(1) signals the host, then its
            // process group) is one request; another one later means: now.
            if let first = stopping.first, first.signal == signal, now - first.at < configuration.repeatedSignalWindow { return }
            say(.stoppingAtOnce(signal))
            for generation in liveGenerations { kill(generation.number, because: .stopAtOnce(signal), probing: false) }
            finish(ExitStatus(rawValue: 128 + signal.rawValue), .stoppedAtOnce)
        case .starting, .serving, .recovering, .backingOff, .upgrading, .handingOver, .takingOver:
            beginStop(signal)
        }
    }

    /// SIGINT or SIGTERM (or `plugin-host stop`, `because`): every generation stops (an
    /// upgrade's candidate that has not begun to bootstrap ends at once); the host ends when
    /// they have, or at their deadline.
    mutating func beginStop(_ signal: Signal, because request: String? = nil) {
        stopping.first = Stopping.Request(signal: signal, at: now)
        if let request {
            say(.stopping(.request(request)))
            announceStopping("Stopping (\(request))")
        } else {
            say(.stopping(.signal(signal)))
            announceStopping("Stopping (received \(signal.name))")
        }
        let current = currentGeneration
        for generation in liveGenerations {
            switch generation.life {
            case .starting where generation.cause.loadsBeside, .prepared:
                kill(generation.number, because: .notNeeded, probing: false)
            case .starting, .proceeding, .serving:
                askToStop(generation.number, signal: signal)
            case .stopping, .killed, .ended:
                break
            }
        }
        stopping.finalStatus = .success
        state = .stopping(current: current.flatMap { generations[$0]?.isLive == true ? $0 : nil })
        finishStopIfDone()
    }

    /// Tells systemd the host is stopping, once.
    mutating func announceStopping(_ status: String) {
        guard !stopping.announced else { return }
        stopping.announced = true
        notify(.stopping(status))
    }

    // MARK: Ending

    mutating func finishStopIfDone() {
        guard case .stopping = state, liveGenerations.isEmpty else { return }
        finish(stopping.finalStatus, .stopped)
    }

    /// A worker sent SIGKILL is gone in a moment; one the kernel keeps longer (stuck in a
    /// device) does not hold up the host's end.
    mutating func endWithoutOverdueWorkers() {
        guard case .stopping = state else { return }
        let live = liveGenerations
        let overdue = live.allSatisfy { generation in
            if case .killed(_, let at, _) = generation.life { now >= at + configuration.reapGrace } else { false }
        }
        guard !live.isEmpty, overdue else { return }
        say(.workersDidNotEnd(count: live.count, grace: configuration.reapGrace))
        finish(.timedOut, .stopped)
    }

    /// The host ends with `status`: every client owed an answer gets one.
    mutating func finish(_ status: ExitStatus, _ reason: EndReason) {
        state = .finished(status, reason)
        let (stops, others) = operators.takeAll()
        for client in stops { act(.answer(client: client, .stopped(status))) }
        for client in others { act(.answer(client: client, .refused(.hostEnded(status)))) }
        // What this host proved outlives it: the record is kept before the end.
        keepRecordIfChanged()
        act(.exit(status, reason))
    }
}
