/// The host's stop, while it is under way: which signal asked for it and when, the generation
/// whose end the host's status is while it lives, and the status the host ends with once every
/// generation stopped. It exists only in the state ``SupervisionMachine/State/stopping(_:)``.
struct Stop: Equatable, Sendable {
    /// The signal that asked for the stop (`plugin-host stop` asks as SIGTERM would).
    let signal: Signal
    /// When it came.
    let requestedAt: MonotonicInstant
    /// The generation that spoke for the host when the stop began, while it lives.
    var current: Int?
    /// The status the host ends with once every generation has stopped: the current
    /// generation's, once it ended.
    var finalStatus = ExitStatus.success
    /// A new host this host started (`upgrade-host`), which stops too, until it ended: the
    /// host ends after it, or at the stop's deadline, so that systemd's main process is the
    /// last to go.
    var newHost: ProcessID?

    /// Whether `signal`, at `instant`, is the request that began the stop delivered again (a
    /// signal to the whole service reaches the host twice; timeout(1) signals the host, then
    /// its process group), rather than another one, which ends the host at once.
    func isRepeated(_ signal: Signal, at instant: MonotonicInstant, window: Duration) -> Bool {
        signal == self.signal && instant - requestedAt < window
    }

    /// The current generation ended with `status`: the host ends with it.
    mutating func currentEnded(with status: ExitStatus) {
        finalStatus = status
        current = nil
    }
}

extension SupervisionMachine {
    // MARK: Stop requests

    mutating func stopRequested(by signal: Signal, from source: SignalSource) {
        // A signal to the whole service reaches the worker and the supervisor at once: the
        // worker's copy counts only when the supervisor has not seen one.
        if case .worker = source, isStopping { return }
        switch state {
        case .finished:
            return
        case .stopping(let stop):
            // The same signal delivered twice at once (timeout(1) signals the host, then its
            // process group) is one request; another one later means: now.
            if stop.isRepeated(signal, at: now, window: configuration.repeatedSignalWindow) { return }
            say(.stoppingAtOnce(signal))
            for generation in liveGenerations { kill(generation.number, because: .stopAtOnce(signal), probing: false) }
            finish(ExitStatus(rawValue: 128 + signal.rawValue), .stoppedAtOnce)
        case .starting, .serving, .recovering, .backingOff, .upgrading, .upgradingHost:
            beginStop(signal)
        }
    }

    /// SIGINT or SIGTERM (or `plugin-host stop`, `askedByOperator`): every generation stops (an
    /// upgrade's candidate that has not begun to bootstrap ends at once); the host ends when
    /// they have, or at their deadline.
    mutating func beginStop(_ signal: Signal, askedByOperator: Bool = false) {
        let request: Announcement.StopRequest = askedByOperator ? .operatorAsked : .signal(signal)
        say(.stopping(request))
        announceStopping(.asked(request))
        let current = currentGeneration
        // A new host this one started stops too, unless it failed already; a new host on
        // trial is the service, and stops the host before with it.
        if case .upgradingHost(let upgrade) = state, upgrade.runningNewHost != nil { act(.endNewHost) }
        if let takeOver, takeOver.phase == .onTrial, !takeOver.otherEndGone { act(.tellHostBefore(.stop)) }
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
        var stop = Stop(signal: signal, requestedAt: now, current: current.flatMap { generations[$0]?.isLive == true ? $0 : nil })
        if case .upgradingHost(let upgrade) = state { stop.newHost = upgrade.runningNewHost }
        enter(.stopping(stop))
        finishStopIfDone()
    }

    /// Tells systemd the host is stopping, once.
    mutating func announceStopping(_ status: HostNotice.Stopping) {
        guard notices.tellStopping() else { return }
        notify(.stopping(status))
    }

    // MARK: Ending

    mutating func finishStopIfDone() {
        guard case .stopping(let stop) = state, liveGenerations.isEmpty else { return }
        if stop.newHost != nil, let deadline = newHostStopDeadline, now < deadline { return }
        finish(stop.finalStatus, .stopped)
    }

    /// When the host ends without waiting any longer for the new host it stops with.
    var newHostStopDeadline: MonotonicInstant? {
        guard case .stopping(let stop) = state, stop.newHost != nil else { return nil }
        return stop.requestedAt + (configuration.stopLimit ?? .zero) + OverrunPolicy.grace + configuration.reapGrace
    }

    /// A worker sent SIGKILL is gone in a moment; one the kernel keeps longer (stuck in a
    /// device) does not hold up the host's end.
    mutating func endWithoutOverdueWorkers() {
        guard case .stopping = state else { return }
        let live = liveGenerations
        let overdue = live.allSatisfy { generation in
            if case .killed(_, let at, _, _) = generation.life { now >= at + configuration.reapGrace } else { false }
        }
        guard !live.isEmpty, overdue else { return }
        say(.workersDidNotEnd(count: live.count, grace: configuration.reapGrace))
        finish(.timedOut, .stopped)
    }

    /// The host ends with `status`: every client owed an answer gets one.
    mutating func finish(_ status: ExitStatus, _ reason: EndReason) {
        enter(.finished(status, reason))
        act(operators.handle(.hostEnded(status)))
        // A new host that ends before its trial passed leaves the sockets to the host before,
        // and, once it told systemd it is the main process, tells it the host before is again.
        if let takeOver, !takeOver.otherEndGone, case .takingOver(let hostBefore, _, _, _) = takeOver.role {
            if takeOver.phase == .onTrial { notify(.mainProcessBack(to: hostBefore)) }
            act(.leaveSocketsInPlace)
        }
        // What this host proved outlives it: the record is kept before the end.
        keepRecordIfChanged()
        act(.exit(status, reason))
    }
}
