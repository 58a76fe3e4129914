/// The worker generations the machine started, each with its life (``Generation/Life``): the
/// part that numbers them, moves each one's life on by what its worker did or the machine
/// decided, and forgets those that ended once the state no longer names them. A life moves
/// down its list, never up: a generation the machine ended is not made to serve by a word of
/// its worker that comes late, and an ended one hears nothing more. Each change below says
/// whether it applied, so that the machine acts only on a change that did.
struct Generations: Sendable {
    /// The generations whose worker lives, and those that ended but the state still names.
    private var byNumber: [Int: Generation] = [:]
    /// How many were started: the last one's number.
    private(set) var started = 0

    init() {}

    /// Generations numbered on from `last`: a new host's, after the host before's.
    init(after last: Int) {
        started = last
    }

    /// The numbers up to `number` are another's: a new host's first generation, which no
    /// generation of this host may share, should this host serve again.
    mutating func reserve(through number: Int) {
        started = max(started, number)
    }
    /// The plugins seen to run a service, in any generation: the host runs as a service.
    private(set) var servicePlugins: Set<String> = []

    /// Generation `number`, while the machine knows it.
    subscript(number: Int) -> Generation? { byNumber[number] }

    /// Every generation the machine knows, in no order.
    var all: Dictionary<Int, Generation>.Values { byNumber.values }

    /// The generations whose worker lives, the oldest first.
    var live: [Generation] {
        byNumber.values.filter(\.isLive).sorted { $0.number < $1.number }
    }

    // MARK: Starting and getting ready

    /// A generation starts for `cause` at `now`.
    ///
    /// - Returns: Its number, one more than the last one's.
    mutating func start(_ cause: GenerationPlan.Cause, at now: MonotonicInstant) -> Int {
        started += 1
        byNumber[started] = Generation(number: started, cause: cause, startedAt: now, life: .starting)
        return started
    }

    /// Generation `number`'s worker started with the held builds `substitutes` in place of files
    /// whose builds are left out.
    mutating func loads(_ number: Int, substitutes: [BuildSubstitute]) {
        byNumber[number]?.substitutes = substitutes
    }

    /// Generation `number` published `plugins`, while its worker lives and the machine has not
    /// ended it.
    ///
    /// - Returns: Whether it is alive to publish them.
    @discardableResult
    mutating func published(_ number: Int, _ plugins: [PublishedPlugin]) -> Bool {
        guard byNumber[number]?.isAlive == true else { return false }
        byNumber[number]?.plugins = plugins
        return true
    }

    /// Generation `number` said, at `now`, every component is ready, running `plugins`: one that
    /// started, took over or waited serves from now on; one that serves already (after a reload)
    /// only publishes them; one stopping, ended or ended by the machine does not serve again.
    ///
    /// - Returns: The generation, when it serves now.
    mutating func ready(_ number: Int, plugins: [PublishedPlugin], at now: MonotonicInstant) -> Generation? {
        guard published(number, plugins), var generation = byNumber[number] else { return nil }
        switch generation.life {
        case .starting, .proceeding, .prepared:
            generation.life = .serving
            generation.readyAt = now
        case .serving:
            break
        case .stopping, .killed, .ended:
            return nil
        }
        byNumber[number] = generation
        return generation
    }

    /// Candidate `number` loaded, as `report` says, and waits for the generation before to stop.
    mutating func prepared(_ number: Int, _ report: CandidateReport) {
        guard case .starting = byNumber[number]?.life else { return }
        byNumber[number]?.life = .prepared(report)
    }

    /// Candidate `number` is told to bootstrap what it loaded: the generation before stopped.
    mutating func proceeds(_ number: Int) {
        guard case .prepared = byNumber[number]?.life else { return }
        byNumber[number]?.life = .proceeding
    }

    /// Candidate `number` is told to give up: the plugin it cannot run is blamed.
    mutating func abandon(_ number: Int, _ abandonment: Generation.Abandonment) {
        byNumber[number]?.abandoned = abandonment
    }

    // MARK: What generations tell

    /// Generation `number` told its plugins' conditions.
    mutating func told(_ number: Int, _ conditions: [PluginCondition]) {
        byNumber[number]?.conditions = conditions
    }

    /// Generation `number` told the warnings about `topic` that hold now.
    mutating func warned(_ number: Int, about topic: String, _ list: [String]) {
        byNumber[number]?.warnings[topic] = list.isEmpty ? nil : list
    }

    /// Generation `number`'s last health check: good until an instant, or bad (`nil`).
    mutating func checkedHealth(_ number: Int, goodUntil: MonotonicInstant?) {
        byNumber[number]?.health = goodUntil.map { .good(until: $0) } ?? .bad
    }

    /// `plugins` run their services: the host runs as a service from now on.
    mutating func sawServices(in plugins: [PublishedPlugin]) {
        servicePlugins.formUnion(plugins.filter(\.providesService).map(\.name))
    }

    // MARK: Stopped by a signal

    /// A signal (`signal`) stopped generation `number`'s worker at `now`.
    ///
    /// - Returns: Whether that is news: it is alive, and was not stopped already.
    mutating func suspended(_ number: Int, by signal: Signal, at now: MonotonicInstant) -> Bool {
        guard let generation = byNumber[number], generation.isAlive, generation.suspension == nil else { return false }
        byNumber[number]?.suspension = Generation.Suspension(since: now, signal: signal)
        return true
    }

    /// Generation `number`'s worker was resumed.
    ///
    /// - Returns: How it was stopped, when it was.
    mutating func resumed(_ number: Int) -> Generation.Suspension? {
        defer { byNumber[number]?.suspension = nil }
        return byNumber[number]?.suspension
    }

    // MARK: Ending

    /// Generation `number`'s worker could not be started: `reason`, the system's words.
    ///
    /// - Returns: Whether that is news: it had not ended.
    mutating func couldNotStart(_ number: Int, _ reason: String) -> Bool {
        guard byNumber[number]?.isLive == true else { return false }
        byNumber[number]?.life = .ended(.couldNotStart(reason))
        return true
    }

    /// Generation `number` is asked to stop by `deadline` (none: no limit); its health checks
    /// end with its services, and it answers for the host until it is gone.
    ///
    /// - Returns: Whether it is alive to be asked.
    mutating func askedToStop(_ number: Int, by deadline: MonotonicInstant?) -> Bool {
        guard byNumber[number]?.isAlive == true else { return false }
        byNumber[number]?.life = .stopping(deadline: deadline)
        byNumber[number]?.health = .unknown
        return true
    }

    /// The machine ends generation `number` at `now` for `reason`, while it spoke for the host
    /// or not.
    ///
    /// - Returns: Whether it was alive to be ended.
    mutating func killed(_ number: Int, because reason: KillReason, at now: MonotonicInstant, spokeForHost: Bool) -> Bool {
        guard let generation = byNumber[number], generation.isAlive else { return false }
        byNumber[number]?.life = .killed(reason, at: now, spokeForHost: spokeForHost, afterStopRequest: generation.wasAskedToStop)
        return true
    }

    /// Generation `number`'s worker ended, as `ending` judged it, publishing `plugins` last (none:
    /// as before), while its worker as a whole was in `phase`; `failedPlugin` is the plugin whose
    /// failure made it give up, unless the machine told it to give up and blamed another.
    ///
    /// - Returns: The generation as it ended, when it lived.
    mutating func ended(_ number: Int, _ ending: WorkerEnding, plugins: [PublishedPlugin], in phase: WorkerPhase, failedPlugin: PluginNumber?) -> Generation? {
        guard var generation = byNumber[number], generation.isLive else { return nil }
        if !plugins.isEmpty { generation.plugins = plugins }
        generation.life = .ended(ending)
        // A candidate the machine told to give up is judged by whom the machine blamed, not by
        // the first failure its worker saw.
        generation.failedPlugin = generation.abandoned.map(\.blamed) ?? failedPlugin
        generation.endedIn = phase
        byNumber[number] = generation
        return generation
    }

    /// Forgets the generations that ended, but for those numbered `named`.
    mutating func forgetEnded(except named: Set<Int>) {
        guard byNumber.values.contains(where: { !$0.isLive }) else { return }
        for (number, generation) in byNumber where !generation.isLive && !named.contains(number) {
            byNumber[number] = nil
        }
    }
}
