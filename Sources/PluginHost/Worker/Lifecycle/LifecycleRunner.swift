import PluginABI

/// The phases after the chain: the services run, the host gets ready, answers health
/// checks, reloads and rescans on request, and stops in two steps (drain, then cancel)
/// before the shutdown. Everything that concerns the components is an event delivered to
/// those that registered for it, in the event's order, each call within its deadline.
///
/// ```
///  chain ──▶ services start ──▶ Readiness ──▶ ready ───────────────▶ Drain ──▶ cancel ──▶ Shutdown
///                                              │ ▲  every --health-interval: HealthCheck
///                                              │ │  SIGHUP: ReloadCheck, Reload, rescan
///                                              └─┘  --watch: rescan (PluginAdded, PluginRemoved)
/// ```
///
/// The worker's driving thread drives it and only waits; every handler runs on the plugin
/// threads (``EventDelivery``), and the services' tasks prefer them too (``ServiceTasks``).
/// Its state is its own: the running plugins and their chain, the services, the last
/// health check, and what rescans remember (``RescanMemory``).
struct LifecycleRunner {
    /// What the runner needs from the rest of the host.
    struct Context: Sendable {
        let events: HostEvents
        /// Threads for plugin code that may never return: a new one whenever all are busy.
        let threads: PluginThreads
        let console: Console
        /// How long one drain or shutdown hook, or the services together, may take to stop.
        var shutdownTimeout: Duration?
        /// How long one readiness, health, reload or change handler may take.
        var timeout: Duration?
        /// How often to check health; `nil` for never.
        var healthInterval: Duration?
        /// Keep running without services, for plugins yet to come (`--watch`).
        var watch = false
        /// Whether a plugin that does not get ready is removed while the others run (in a
        /// generation that heals the host), rather than stopping the host.
        var leavesUnreadyOut = false
        /// Reads the configuration file again: the settings of each plugin, or a problem.
        var readConfiguration: @Sendable () -> Result<[String: Settings], Problem>
        /// The configuration file, as messages name it.
        var configurationFile: String?
        /// Where plugins are searched for.
        var search: SearchOptions
        /// How plugins join while the host runs.
        var admission: Admission
    }

    let context: Context
    /// The running plugins, in bootstrap order.
    private(set) var plugins: [RunningPlugin]
    /// The running components, in bootstrap order.
    private(set) var chain: Bootstrapped
    /// The settings each plugin was given last.
    var settings: [String: Settings]
    var services = ServiceTasks()
    /// The last health check's outcome: the plugins that are not healthy, with their answers.
    var unwell: [(plugin: RunningPlugin, health: Health)] = []
    /// What rescans remember from one to the next.
    var rescans: RescanMemory
    /// The settings each running plugin bootstrapped with, or last applied in a reload: what
    /// it runs with.
    var runningWith: [String: Settings]
    /// The plugins that did not get ready and were removed, with why.
    var notReady: [PluginCondition] = []
    /// What the supervisor was last told of the plugins' conditions.
    private var conditionsTold: [PluginCondition]?

    /// When the host was asked to stop, the instant its hooks must be over by: each drain,
    /// service stop and shutdown hook gets `--shutdown-timeout`, and all of them together
    /// that and half the grace, so that the worker names what it skipped and exits before the
    /// supervisor ends it, `--shutdown-timeout` and the grace after it asked.
    private(set) var stopDeadline: MonotonicInstant?

    var link: WorkerLink { context.threads.link }
    var delivery: EventDelivery { EventDelivery(threads: context.threads) }

    /// - Parameters:
    ///   - plugins: The plugins bootstrapped, in bootstrap order.
    ///   - chain: Their components.
    ///   - rescans: What the survey before them found and loaded, reported already.
    init(context: Context, plugins: [RunningPlugin], chain: Bootstrapped, settings: [String: Settings], rescans: RescanMemory) {
        self.context = context
        self.plugins = plugins
        self.chain = chain
        self.settings = settings
        self.rescans = rescans
        runningWith = settings
    }

    // MARK: Running

    /// Starts the services, waits until the host is ready, then handles what comes (health
    /// checks, reloads, rescans) until the host is asked to stop, a service fails, or no
    /// service is left (unless watching); then drains and stops the services.
    ///
    /// - Returns: The problems of the run, also reported on stderr as they happened.
    mutating func run() -> [Problem] {
        guard !link.stopRequested else {
            beginStop()
            return stop(after: [])
        }
        var (problems, unready) = bringUp(plugins, removingUnready: context.leavesUnreadyOut)
        var stopping = !unready.isEmpty && !context.leavesUnreadyOut
        if !stopping { announce(.ready(status: "")) }
        let interval = context.healthInterval
        var nextCheck = interval.map { MonotonicInstant.now + $0 }
        if let interval { link.reportHealth(goodUntil: .now + interval * 2) }
        while !stopping, !services.isEmpty || context.watch {
            guard let event = context.events.next(until: nextCheck) else {
                checkHealth()
                nextCheck = interval.map { MonotonicInstant.now + $0 }
                continue
            }
            switch event {
            case .reload:
                link.notify(.reloading(at: .now))
                // A reload or rescan that fails changes nothing; what went wrong is on
                // stderr, and the exit status is the stop's. Builds left out stay out.
                let outcome = reload()
                link.tell(.reload(applied: outcome.applied, reasons: outcome.problems.map(\.message)))
                _ = rescan()
                announce(.ready(status: ""))
            case .rescan:
                _ = rescan()
                announce(.status(""))
            case .removeGone:
                _ = removeGone()
                announce(.status(""))
            case .serviceEnded(let number, let error):
                services.ended(number)
                if let error, let plugin = plugins.first(where: { $0.number == number }),
                    let problem = Hook.service(consequence: "stopping the others").problem(of: plugin, .failed(error), limit: nil) {
                    problems.append(report(problem))
                    stopping = true
                }
            case .stop:
                beginStop()
                stopping = true
            case .verdict:
                break
            }
        }
        return stop(after: problems)
    }

    /// The last step of admission, for the plugins of a start and for plugins added while
    /// the host runs alike: starts the services of `plugins`, which just joined, and waits
    /// until each is ready; one that is not is removed with the plugins that require it when
    /// `removingUnready` (otherwise the host stops).
    ///
    /// - Returns: The problems, also reported on stderr, and the plugins that did not get ready.
    mutating func bringUp(_ plugins: [RunningPlugin], removingUnready: Bool) -> (problems: [Problem], unready: [RunningPlugin]) {
        link.enter(.running)
        services.start(plugins, threads: context.threads, events: context.events)
        let unready = awaitReadiness(of: plugins, consequence: removingUnready ? "removing it" : "stopping")
        notReady += unready.map { plugin, problem in
            PluginCondition(
                name: plugin.name, state: .notReady, file: plugin.candidate.file, version: plugin.candidate.manifest.version.description,
                reason: problem.message)
        }
        var problems = unready.map(\.problem)
        if removingUnready { problems += remove(unready.map(\.plugin)) }
        return (problems, unready.map(\.plugin))
    }

    /// Delivers ``Readiness`` to `plugins`, in bootstrap order: the host is ready when
    /// every one that handles it has returned.
    ///
    /// - Parameter consequence: What the host does about one that does not get ready, as
    ///   the message says it: `stopping`.
    /// - Returns: The components that did not get ready, with why, also reported on stderr.
    func awaitReadiness(of plugins: [RunningPlugin], consequence: String) -> [(plugin: RunningPlugin, problem: Problem)] {
        let hook = Hook.readiness(consequence: consequence)
        return delivery.deliver(Readiness.self, to: plugins, phase: .ready, within: context.timeout) { _ in Readiness() }
            .compactMap { delivered in
                hook.problem(of: delivered.plugin, delivered.outcome, limit: context.timeout).map { (delivered.plugin, report($0)) }
            }
    }

    // MARK: Stopping

    /// The host was asked to stop: from now on its hooks have ``stopDeadline``.
    mutating func beginStop() {
        guard stopDeadline == nil, let limit = context.shutdownTimeout else { return }
        stopDeadline = .now + limit + OverrunPolicy.grace / 2
    }

    /// Stops in two steps: every component that handles ``Drain`` stops taking new work, in
    /// reverse bootstrap order; then the services are cancelled and waited for.
    ///
    /// - Returns: `problems`, and those of the stop.
    private mutating func stop(after problems: [Problem]) -> [Problem] {
        link.notify(.stopping(status: "Stopping"))
        link.enter(.stopping)
        return problems + drain(plugins) + stopServices(of: plugins)
    }

    /// Delivers ``Drain`` to `plugins`, in reverse bootstrap order.
    ///
    /// - Returns: The drains that failed or overran (and were skipped), also on stderr.
    func drain(_ plugins: [RunningPlugin]) -> [Problem] {
        delivery.call(.drain, Drain.self, to: plugins, phase: .drain, within: context.shutdownTimeout, until: stopDeadline) { _ in Drain() }
            .map(report)
    }

    /// Cancels the services of `plugins` and waits up to the shutdown timeout for them to
    /// return; names those that did not.
    mutating func stopServices(of plugins: [RunningPlugin]) -> [Problem] {
        services.stop(plugins, threads: context.threads, events: context.events, within: context.shutdownTimeout, until: stopDeadline)
            .compactMap { plugin in Hook.serviceStop.problem(of: plugin, .overran, limit: context.shutdownTimeout).map(report) }
    }

    /// Delivers ``Shutdown`` to every running component that handles it, in reverse
    /// bootstrap order, each within the shutdown timeout.
    ///
    /// - Returns: The hooks that failed or overran (and were skipped), also on stderr.
    /// The worker stops to make way for another generation: each component that handles
    /// ``HandOff`` says what it hands the next build of its plugin, in reverse bootstrap order,
    /// each within `--shutdown-timeout`.
    ///
    /// - Returns: What each plugin handed over, and the problems of those that failed to.
    func handOff() -> (handed: [(plugin: String, handedOver: HandedOver)], problems: [Problem]) {
        let delivered = delivery.deliver(HandOff.self, to: plugins, phase: .shutdown, within: context.shutdownTimeout, until: stopDeadline) { _ in
            HandOff()
        }
        let handed = delivered.compactMap { delivered in delivered.answer.map { (delivered.plugin.name, $0) } }
        let problems = delivered.compactMap { Hook.handOff.problem(of: $0.plugin, $0.outcome, limit: context.shutdownTimeout) }.map(report)
        return (handed, problems)
    }

    func shutDown() -> [Problem] {
        link.enter(.shuttingDown)
        return shutDown(plugins)
    }

    func shutDown(_ plugins: [RunningPlugin]) -> [Problem] {
        delivery.call(.shutdown, Shutdown.self, to: plugins, phase: .shutdown, within: context.shutdownTimeout, until: stopDeadline) { _ in
            Shutdown()
        }
            .map(report)
    }

    // MARK: Leaving

    /// Takes `leaving` out of the running plugins; their components stay loaded.
    mutating func leave(_ leaving: Set<String>) {
        for plugin in plugins where leaving.contains(plugin.name) { link.recordRemoved(plugin.number) }
        chain = chain.removing(leaving)
        plugins.removeAll { leaving.contains($0.name) }
    }

    // MARK: Status

    /// Tells the supervisor what became of every plugin, when that changed, then
    /// `notification`: the supervisor tells systemd, and says what `STATUS=` names of the
    /// plugins from its own record of what it was told. A status's text is what happened
    /// (`Added plugin Extra`), or empty.
    mutating func announce(_ notification: ServiceNotification) {
        let conditions = conditions()
        if conditions != conditionsTold {
            conditionsTold = conditions
            link.tell(.plugins(conditions))
        }
        link.notify(notification)
    }

    /// Every plugin this worker runs or knows of and does not run: serving (or what its last
    /// health check said), left out, not added, not ready, or optional and absent.
    func conditions() -> [PluginCondition] {
        var conditions = plugins.map { plugin in
            let health = unwell.first { $0.plugin.number == plugin.number }?.health
            let state: PluginCondition.State = health.map { $0.severity >= 2 ? .unhealthy : .degraded } ?? .serving
            return PluginCondition(
                name: plugin.name, state: state, file: plugin.candidate.file, version: plugin.candidate.manifest.version.description,
                reason: health?.reason, build: plugin.candidate.status?.identity)
        }
        let notAdded = rescans.notAddedProblems.map { problem in
            PluginCondition(name: problem.plugin ?? problem.file ?? "?", state: .notAdded, file: problem.file, reason: problem.message)
        }
        // A plugin whose file's build is left out and whose build from before, loaded in its
        // place, failed too is told once: not added, with why the build from before failed.
        conditions += (rescans.leftOut.filter { left in !notAdded.contains { $0.name == left.name } }
            + rescans.upgradesRefused.keys.sorted().compactMap { rescans.upgradesRefused[$0] })
            .map { PluginCondition(name: $0.name, state: .leftOut, file: $0.file, reason: $0.reason) }
        conditions += notReady.filter { condition in !plugins.contains { $0.name == condition.name } }
        conditions += notAdded
        conditions += rescans.comingIn.map { candidate in
            PluginCondition(
                name: candidate.name, state: .comingIn, file: candidate.file, version: candidate.manifest.version.description,
                reason: "a new worker brings it in beside the running plugins", build: candidate.status?.identity)
        }
        let known = Set(conditions.map(\.name))
        for plugin in plugins {
            for optional in plugin.candidate.manifest.optional where !known.contains(optional) && !conditions.contains(where: { $0.name == optional }) {
                conditions.append(PluginCondition(
                    name: optional, state: .optionalAndAbsent, reason: "listed as optional by \(plugin.name), and not installed"))
            }
        }
        return conditions
    }

    /// Prints a problem of the running host on stderr at once.
    @discardableResult
    func report(_ problem: Problem) -> Problem {
        context.console.write(Diagnostics.text(problems: [problem]), to: .error)
        return problem
    }

    /// Says `line` on stderr, as `plugin-host: LINE`.
    func say(_ line: String) {
        context.console.write("plugin-host: \(line)\n", to: .error)
    }
}
