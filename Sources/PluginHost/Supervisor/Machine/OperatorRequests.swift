/// What operators asked through the control socket that the machine still owes an answer,
/// and the clients that follow the host's changes.
///
/// Reloads coalesce as the kernel coalesces a pending signal and systemd a queued reload job:
/// at most one reload is asked of a generation at a time, and at most one more waits; every
/// request that comes meanwhile (SIGHUP, `plugin-host reload`) joins the one that waits, and
/// its outcome answers them all. A request joins a reload that begins after it, never one
/// under way, which may have read the configuration before it changed.
struct OperatorRequests: Sendable {
    /// A reload asked of a generation, and the clients its outcome answers.
    struct Reload: Equatable, Sendable {
        var generation: Int
        var clients: [Int]
    }

    /// What the machine tells the part: what operators asked, and what became of it.
    enum Fact {
        /// A reload is asked for, by a client or by a signal (`nil`); `serving` is the
        /// generation that serves, if one does.
        case reloadAsked(by: Int?, serving: Int?)
        /// Generation `serving` serves: the reload that waits begins on it, when none is under way.
        case serves(Int)
        /// A generation told its reload's outcome; `serving` is the generation that serves now.
        case reloaded(Int, applied: Bool, reasons: [String], serving: Int?)
        /// A generation ended as `ending` says; `serving` is the generation that serves, if one does.
        case ended(Int, WorkerEnding, serving: Int?)
        /// A restart is under way for `client`: its generation is `generation`.
        case restartStarted(generation: Int, client: Int)
        /// A restart's generation served, or could not: every client waiting for it is answered.
        case restartEnded(generation: Int, RestartOutcome)
        /// `client`'s restart of `names` waits for the driver's check of the files on disk.
        case restartAwaitsCheck(names: [String], client: Int)
        /// `client`'s rollback waits for the driver to hold the builds it brings back.
        case rollbackAwaitsHold([BuildLedger.Trial], client: Int)
        /// `client` waits for the host's end.
        case stopAsked(client: Int)
        /// `client` waits for the host to serve.
        case waits(client: Int)
        /// The host serves, with no change of generation under way, and its status is
        /// `status`: every client that waits for it is answered.
        case servesSteadily(HostStatus)
        /// `client` follows the host from now, when its status is `status`.
        case follows(client: Int, status: HostStatus)
        /// The host's status is `status` at `at`: followers see what changed.
        case statusIs(HostStatus, at: MonotonicInstant)
        /// A client went away: nothing more is owed to it.
        case left(client: Int)
        /// The host ends with `status`: every client still owed an answer gets one.
        case hostEnded(ExitStatus)
    }

    /// The last SIGHUP that counted: whether a worker passed it on, and when.
    private var lastHangUp: (fromWorker: Bool, at: MonotonicInstant)?
    /// The reload asked of a generation that has not told its outcome yet.
    private var reloadUnderWay: Reload?
    /// The clients of the reload that waits (empty for a signal's); `nil` when none waits.
    private var reloadWaiting: [Int]?
    /// Clients waiting for a restart's outcome, with the generation that answers it.
    private var restarts: [(client: Int, generation: Int)] = []
    /// Clients whose restart waits for the driver's check of the files on disk.
    private var restartChecks: [(client: Int, names: [String])] = []
    /// Clients whose rollback waits for the driver to hold the builds it brings back.
    private var rollbackHolds: [(client: Int, rollbacks: [BuildLedger.Trial])] = []
    /// Clients waiting for the host's end.
    private var stops: [Int] = []
    /// Clients waiting for the host to serve.
    private var waiters: [Int] = []
    /// Clients that follow the host's changes, and what they were shown last.
    private var followers: [Int] = []
    private var shownToFollowers: HostStatus?

    /// Whether anyone follows the host's changes.
    var hasFollowers: Bool { !followers.isEmpty }

    /// Whether anyone waits for the host to serve.
    var hasWaiters: Bool { !waiters.isEmpty }

    /// Takes `fact` in.
    ///
    /// - Returns: The answers it owes now, and the reload it asks of the serving generation.
    mutating func handle(_ fact: Fact) -> [SupervisionAction] {
        switch fact {
        case .reloadAsked(let client, let serving):
            reloadWaiting = (reloadWaiting ?? []) + (client.map { [$0] } ?? [])
            guard let serving else { return [] }
            return beginWaitingReload(on: serving)
        case .serves(let serving):
            return beginWaitingReload(on: serving)
        case .reloaded(let number, let applied, let reasons, let serving):
            let answers = (endReload(on: number) ?? []).map { SupervisionAction.answer(client: $0, .reload(applied: applied, reasons: reasons)) }
            guard let serving else { return answers }
            return answers + beginWaitingReload(on: serving)
        case .ended(let number, let ending, let serving):
            let answers = answerRestart(of: number, .endedBeforeServing(generation: number, ending))
            guard let clients = endReload(on: number) else { return answers }
            // A generation that drained with a reload under way: the one that serves takes the next.
            var next: [SupervisionAction] = []
            if let serving, serving != number { next = beginWaitingReload(on: serving) }
            return answers + clients.map { .answer(client: $0, .reloadEnded(generation: number, ending)) } + next
        case .restartStarted(let generation, let client):
            restarts.append((client, generation))
            return []
        case .restartEnded(let generation, let outcome):
            return answerRestart(of: generation, outcome)
        case .restartAwaitsCheck(let names, let client):
            restartChecks.append((client, names))
            return []
        case .rollbackAwaitsHold(let rollbacks, let client):
            rollbackHolds.append((client, rollbacks))
            return []
        case .stopAsked(let client):
            stops.append(client)
            return []
        case .waits(let client):
            waiters.append(client)
            return []
        case .servesSteadily(let status):
            defer { waiters = [] }
            return waiters.map { .answer(client: $0, .status(status)) }
        case .follows(let client, let status):
            // Every follower is shown the same changes: the first one's starting point is theirs.
            if followers.isEmpty { shownToFollowers = status }
            followers.append(client)
            return [.answer(client: client, .change("following", status))]
        case .statusIs(let status, let now):
            return show(status, at: now)
        case .left(let client):
            left(client)
            return []
        case .hostEnded(let status):
            return takeAll(endingWith: status)
        }
    }

    // MARK: Reloads

    /// Whether a SIGHUP, from a worker that passed it on or not, is a request of its own: a
    /// signal to the whole service reaches the supervisor and the worker at once, and the
    /// copy the other one got within `window` is the same request.
    mutating func countsAsRequest(hangUpFromWorker fromWorker: Bool, at now: MonotonicInstant, window: Duration) -> Bool {
        if let last = lastHangUp, last.fromWorker != fromWorker, now - last.at < window { return false }
        lastHangUp = (fromWorker, now)
        return true
    }

    /// The reload that waits begins on `generation`, when none is under way.
    private mutating func beginWaitingReload(on generation: Int) -> [SupervisionAction] {
        guard reloadUnderWay == nil, let clients = reloadWaiting else { return [] }
        reloadUnderWay = Reload(generation: generation, clients: clients)
        reloadWaiting = nil
        return [.ask(generation: generation, .reload)]
    }

    /// `generation` told a reload's outcome, or ended before it did.
    ///
    /// - Returns: The clients the reload under way on it answers; `nil` when none was.
    private mutating func endReload(on generation: Int) -> [Int]? {
        guard let reload = reloadUnderWay, reload.generation == generation else { return nil }
        reloadUnderWay = nil
        return reload.clients
    }

    // MARK: Restarts and rollbacks

    /// The restart of `client` whose check of the files came back, if it still waits.
    mutating func takeRestartCheck(of client: Int) -> [String]? {
        guard let index = restartChecks.firstIndex(where: { $0.client == client }) else { return nil }
        return restartChecks.remove(at: index).names
    }

    /// The rollbacks whose builds `asked` holds, taken: the driver answered their hold.
    mutating func takeRollbackHolds(answeredBy asked: [PublishedPlugin]) -> [(client: Int, rollbacks: [BuildLedger.Trial])] {
        let answered = rollbackHolds.filter { pending in
            pending.rollbacks.allSatisfy { rollback in asked.contains { $0.isSameBuild(as: rollback.replaced) } }
        }
        rollbackHolds.removeAll { pending in answered.contains { $0.client == pending.client } }
        return answered
    }

    /// Answers the clients waiting for generation `generation`'s restart.
    private mutating func answerRestart(of generation: Int, _ outcome: RestartOutcome) -> [SupervisionAction] {
        defer { restarts.removeAll { $0.generation == generation } }
        return restarts.filter { $0.generation == generation }.map { .answer(client: $0.client, .restart(outcome)) }
    }

    // MARK: Followers

    /// The host's status is `current` at `now`: the followers are shown it when it changed
    /// since they were shown the last, with the change of state when there is one ("serving
    /// -> upgrading"), or "changed". The time alone moving on is no change.
    ///
    /// - Returns: The answers to send, one for each follower.
    private mutating func show(_ current: HostStatus, at now: MonotonicInstant) -> [SupervisionAction] {
        guard !followers.isEmpty else { return [] }
        var current = current
        let before = shownToFollowers
        current.now = before?.now ?? current.now
        guard current != before else { return [] }
        current.now = now
        shownToFollowers = current
        let what = before.map { $0.state != current.state ? "\($0.state) -> \(current.state)" : "changed" } ?? "following"
        return followers.map { .answer(client: $0, .change(what, current)) }
    }

    // MARK: Ending

    /// Every client still owed an answer is answered, once: a stop with the status the host
    /// ends with, any other request refused.
    private mutating func takeAll(endingWith status: ExitStatus) -> [SupervisionAction] {
        let others = (reloadUnderWay?.clients ?? []) + (reloadWaiting ?? []) + restarts.map(\.client) + restartChecks.map(\.client)
            + rollbackHolds.map(\.client) + waiters
        let answers = stops.map { SupervisionAction.answer(client: $0, .stopped(status)) }
            + others.map { .answer(client: $0, .refused(.hostEnded(status))) }
        stops = []
        restarts = []
        restartChecks = []
        rollbackHolds = []
        waiters = []
        reloadUnderWay = nil
        reloadWaiting = nil
        return answers
    }

    /// A client went away: nothing more is owed to it.
    private mutating func left(_ client: Int) {
        followers.removeAll { $0 == client }
        reloadUnderWay?.clients.removeAll { $0 == client }
        reloadWaiting?.removeAll { $0 == client }
        restarts.removeAll { $0.client == client }
        restartChecks.removeAll { $0.client == client }
        rollbackHolds.removeAll { $0.client == client }
        stops.removeAll { $0 == client }
        waiters.removeAll { $0 == client }
    }
}
