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

    /// The last SIGHUP that counted: whether a worker passed it on, and when.
    private var lastHangUp: (fromWorker: Bool, at: MonotonicInstant)?
    /// The reload asked of a generation that has not told its outcome yet.
    private(set) var reloadUnderWay: Reload?
    /// The clients of the reload that waits (empty for a signal's); `nil` when none waits.
    private(set) var reloadWaiting: [Int]?
    /// Clients waiting for a restart's outcome, with the generation that answers it.
    private(set) var restarts: [(client: Int, generation: Int)] = []
    /// Clients whose restart waits for the driver's check of the files on disk.
    private(set) var restartChecks: [(client: Int, names: [String])] = []
    /// Clients whose rollback waits for the driver to hold the builds it brings back.
    private(set) var rollbackHolds: [(client: Int, rollbacks: [BuildLedger.Trial])] = []
    /// Clients waiting for the host's end.
    private(set) var stops: [Int] = []
    /// Clients that follow the host's changes, and what they were shown last.
    private(set) var followers: [Int] = []
    private var shownToFollowers: HostStatus?

    // MARK: Reloads

    /// Whether a SIGHUP, from a worker that passed it on or not, is a request of its own: a
    /// signal to the whole service reaches the supervisor and the worker at once, and the
    /// copy the other one got within `window` is the same request.
    mutating func countsAsRequest(hangUpFromWorker fromWorker: Bool, at now: MonotonicInstant, window: Duration) -> Bool {
        if let last = lastHangUp, last.fromWorker != fromWorker, now - last.at < window { return false }
        lastHangUp = (fromWorker, now)
        return true
    }

    /// A reload is asked for, by `client` or by a signal (`nil`): it joins the one that waits.
    mutating func requestReload(by client: Int?) {
        reloadWaiting = (reloadWaiting ?? []) + (client.map { [$0] } ?? [])
    }

    /// The reload that waits begins on `generation`, when none is under way.
    ///
    /// - Returns: Whether one began.
    mutating func beginWaitingReload(on generation: Int) -> Bool {
        guard reloadUnderWay == nil, let clients = reloadWaiting else { return false }
        reloadUnderWay = Reload(generation: generation, clients: clients)
        reloadWaiting = nil
        return true
    }

    /// `generation` told a reload's outcome, or ended before it did.
    ///
    /// - Returns: The clients the reload under way on it answers; `nil` when none was.
    mutating func endReload(on generation: Int) -> [Int]? {
        guard let reload = reloadUnderWay, reload.generation == generation else { return nil }
        reloadUnderWay = nil
        return reload.clients
    }

    // MARK: Restarts and stops

    mutating func awaitCheck(ofRestart names: [String], for client: Int) {
        restartChecks.append((client, names))
    }

    /// The restart of `client` whose check of the files came back, if it still waits.
    mutating func takeRestartCheck(of client: Int) -> [String]? {
        guard let index = restartChecks.firstIndex(where: { $0.client == client }) else { return nil }
        return restartChecks.remove(at: index).names
    }

    mutating func awaitHold(ofRollbacks rollbacks: [BuildLedger.Trial], for client: Int) {
        rollbackHolds.append((client, rollbacks))
    }

    /// The rollbacks whose builds `asked` holds, taken: the driver answered their hold.
    mutating func takeRollbackHolds(answeredBy asked: [PublishedPlugin]) -> [(client: Int, rollbacks: [BuildLedger.Trial])] {
        let answered = rollbackHolds.filter { pending in
            pending.rollbacks.allSatisfy { rollback in asked.contains { $0.isSameBuild(as: rollback.replaced) } }
        }
        rollbackHolds.removeAll { pending in answered.contains { $0.client == pending.client } }
        return answered
    }

    mutating func awaitRestart(of generation: Int, for client: Int) {
        restarts.append((client, generation))
    }

    /// The clients waiting for generation `number`'s restart, who are answered now.
    mutating func takeRestartClients(of generation: Int) -> [Int] {
        defer { restarts.removeAll { $0.generation == generation } }
        return restarts.filter { $0.generation == generation }.map(\.client)
    }

    /// Whether someone waits for generation `number`'s restart.
    func awaitsRestart(of generation: Int) -> Bool {
        restarts.contains { $0.generation == generation }
    }

    mutating func awaitStop(for client: Int) {
        stops.append(client)
    }

    /// `client` follows the host from now, when its status is `status`: it is shown that
    /// first, and each change from it after.
    ///
    /// - Returns: The first answer the follower gets.
    mutating func follow(by client: Int, from status: HostStatus) -> SupervisionAction {
        // Every follower is shown the same changes: the first one's starting point is theirs.
        if followers.isEmpty { shownToFollowers = status }
        followers.append(client)
        return .answer(client: client, .change("following", status))
    }

    /// The host's status is `current` at `now`: the followers are shown it when it changed
    /// since they were shown the last, with the change of state when there is one ("serving
    /// -> upgrading"), or "changed". The time alone moving on is no change.
    ///
    /// - Returns: The answers to send, one for each follower.
    mutating func show(_ current: HostStatus, at now: MonotonicInstant) -> [SupervisionAction] {
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

    /// Every client still owed an answer, taken: the host ends.
    mutating func takeAll() -> (stops: [Int], others: [Int]) {
        defer {
            stops = []
            restarts = []
            restartChecks = []
            rollbackHolds = []
            reloadUnderWay = nil
            reloadWaiting = nil
        }
        return (stops, (reloadUnderWay?.clients ?? []) + (reloadWaiting ?? []) + restarts.map(\.client) + restartChecks.map(\.client)
            + rollbackHolds.map(\.client))
    }

    /// A client went away: nothing more is owed to it.
    mutating func left(_ client: Int) {
        followers.removeAll { $0 == client }
        reloadUnderWay?.clients.removeAll { $0 == client }
        reloadWaiting?.removeAll { $0 == client }
        restarts.removeAll { $0.client == client }
        restartChecks.removeAll { $0.client == client }
        rollbackHolds.removeAll { $0.client == client }
        stops.removeAll { $0 == client }
    }
}
