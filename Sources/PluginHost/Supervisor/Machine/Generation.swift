/// One worker generation, as the supervisor's state machine knows it: why it started, where
/// its life stands, and what it last published.
struct Generation: Equatable, Sendable {
    /// 1 for the first generation, counting up.
    let number: Int
    let cause: GenerationPlan.Cause
    let startedAt: MonotonicInstant
    var life: Life
    /// Its plugins, as it last published them.
    var plugins: [PublishedPlugin] = []
    /// What it last told of its plugins' conditions: serving, left out, and why.
    var conditions: [PluginCondition]?
    /// The warnings it told, by what they are about: in force while it speaks for the host.
    var warnings: [String: [String]] = [:]
    /// The held builds it loaded in place of files whose builds are left out, as the driver
    /// handed them over: each from a file held from before, or from the record's copy.
    var substitutes: [BuildSubstitute] = []
    /// When it last said it was ready.
    var readyAt: MonotonicInstant?
    /// Its last health check: good until an instant, or bad (`nil`); `nil` also before the
    /// first one, which counts as good.
    var health: Health = .unknown
    /// Since when a signal keeps its worker stopped (SIGSTOP), and which.
    var suspension: Suspension?
    /// The plugin whose failure (an error, not a crash) made its worker give up, once it ended.
    var failedPlugin: PluginNumber?
    /// An upgrade's candidate the machine told to give up: the plugin it blamed (by number;
    /// `nil` for one the candidate never published), which its end is judged by.
    var abandoned: Abandonment?

    /// Why the machine told a candidate to give up.
    struct Abandonment: Equatable, Sendable {
        /// The plugin that runs now and that the candidate cannot run.
        var blamed: PluginNumber?
        /// Whether it was told once it had bootstrapped (it was handed what the generation
        /// before handed over), or before, when it has nothing to pass on.
        var bootstrapped: Bool
    }
    /// The builds its end blames, once it ended: its culprits, as it published them last.
    var culpritBuilds: [PublishedPlugin] {
        ending?.culprits.compactMap { plugins[number: $0] } ?? []
    }

    /// Whether it was asked to stop (to drain, or as the host stops) before its worker ended:
    /// an end then is no failure of a generation that serves.
    var wasAskedToStop: Bool {
        switch life {
        case .stopping: true
        case .killed(_, _, _, let afterStopRequest): afterStopRequest
        case .starting, .prepared, .proceeding, .serving, .ended: false
        }
    }

    /// What its worker as a whole was doing when it ended.
    var endedIn: WorkerPhase = .startUp

    /// Where a generation's life stands. A generation moves down the list, never up, except
    /// that a serving generation is asked to stop.
    enum Life: Equatable, Sendable {
        /// Its worker surveys, loads and bootstraps the plugins.
        case starting
        /// An upgrade's new generation: its plugins are loaded, as `report` says, and it waits
        /// for the word to bootstrap them, once the generation before has stopped; what that
        /// generation runs when it ends is judged against the report again.
        case prepared(CandidateReport)
        /// Told to bootstrap the plugins it had loaded, after the generation before stopped.
        case proceeding
        /// It said every component is ready.
        case serving
        /// Asked to stop (drain, stop the services, shut down, exit), by this deadline.
        case stopping(deadline: MonotonicInstant?)
        /// Ended by the supervisor, at this instant and why, while it spoke for the host or not,
        /// after it was asked to stop or not; its worker is yet to be reaped.
        case killed(KillReason, at: MonotonicInstant, spokeForHost: Bool, afterStopRequest: Bool)
        /// Its worker was reaped.
        indirect case ended(WorkerEnding)
    }

    /// A generation's last health check.
    enum Health: Equatable, Sendable {
        case unknown
        case good(until: MonotonicInstant)
        case bad
    }

    /// The builds it runs, as it told last: plugins added or removed since it published them
    /// at its readiness count (what it told of each includes the build); once it ended, what it
    /// published last.
    var running: [PublishedPlugin] {
        guard isLive, let conditions else { return plugins.running }
        // Each name's latest running build, in one pass whatever the number of plugins; only a
        // name that runs twice (an old and a new build, briefly) is looked up further back.
        // Both lists are read by index, which copies nothing.
        var latest: [String: Int] = [:]
        latest.reserveCapacity(plugins.count)
        var runsTwice = false
        for build in plugins.indices where plugins[build].isRunning {
            if latest.updateValue(build, forKey: plugins[build].name) != nil { runsTwice = true }
        }
        var running: [PublishedPlugin] = []
        running.reserveCapacity(conditions.count)
        for told in conditions.indices where conditions[told].state.runs {
            let name = conditions[told].name
            let identity = conditions[told].build
            let isTold = { (build: Int) in identity.map { plugins[build].identity?.hasSameContents(as: $0) == true } ?? true }
            if let index = latest[name] {
                if isTold(index) {
                    running.append(plugins[index])
                    continue
                }
                if runsTwice, let earlier = plugins[..<index].indices.last(where: { plugins[$0].isRunning && plugins[$0].name == name && isTold($0) }) {
                    running.append(plugins[earlier])
                    continue
                }
            }
            let condition = conditions[told]
            running.append(PublishedPlugin(
                name: condition.name, file: condition.file ?? "", version: condition.version ?? "?", identity: condition.build, state: .running))
        }
        return running
    }

    /// Whether its worker has not been reaped.
    var isLive: Bool {
        if case .ended = life { false } else { true }
    }

    /// Whether its worker lives and the supervisor has not ended it.
    var isAlive: Bool {
        switch life {
        case .starting, .prepared, .proceeding, .serving, .stopping: true
        case .killed, .ended: false
        }
    }

    /// How it ended, once it has.
    var ending: WorkerEnding? {
        if case .ended(let ending) = life { ending } else { nil }
    }

    /// A signal that keeps the worker stopped.
    struct Suspension: Equatable, Sendable {
        var since: MonotonicInstant
        var signal: Signal
    }
}
