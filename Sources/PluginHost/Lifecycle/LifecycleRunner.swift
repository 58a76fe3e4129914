import PluginABI
import Synchronization

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
/// threads, within its deadline (``PluginCalls``), and the services' tasks prefer them
/// too. It is used from the driving thread only.
final class LifecycleRunner: @unchecked Sendable {
    /// A bootstrapped plugin.
    struct Member: Sendable {
        /// The plugin's number in the supervision page.
        let index: Int
        let candidate: PluginCandidate
        let component: any Bootstrapping
        /// What the component registered while it bootstrapped.
        let lifecycle: PluginABI.Lifecycle

        var name: String { candidate.name }
    }

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
        /// Reads the configuration file again: the settings of each plugin, or a problem.
        var readConfiguration: @Sendable () -> Result<[String: Settings], Problem>
        /// Finds, checks, loads and bootstraps plugins added while the host runs.
        var additions: PluginAdditions
    }

    let context: Context
    /// The running plugins, in bootstrap order.
    var members: [Member]
    /// The running components, in bootstrap order.
    var chain: Bootstrapped
    /// The settings each plugin was given last.
    var settings: [String: Settings]
    /// The files not added at the last scan, each with why, reported already.
    var notAddedReported: Set<String>
    /// The files of running plugins that changed, each with its new state, reported already.
    var changesReported: Set<String> = []
    /// The running services, by plugin number.
    var services: [Int: Task<Void, Never>] = [:]
    /// The last health check's outcome: the plugins that are not healthy, with their answers.
    var unwell: [(member: Member, health: Health)] = []

    var link: WorkerLink { context.threads.link }

    /// - Parameters:
    ///   - members: The plugins bootstrapped, in bootstrap order.
    ///   - chain: Their components.
    ///   - scan: What the survey before them found, reported already.
    init(context: Context, members: [Member], chain: Bootstrapped, settings: [String: Settings], scan: PluginDirectory.Scan) {
        self.context = context
        self.members = members
        self.chain = chain
        self.settings = settings
        notAddedReported = Set(scan.problems.map { "\($0.file ?? $0.plugin ?? "")\n\($0.message); not added" })
    }

    // MARK: Running

    /// Starts the services, waits until the host is ready, then handles what comes (health
    /// checks, reloads, rescans) until the host is asked to stop, a service fails, or no
    /// service is left (unless watching); then drains and stops the services.
    ///
    /// - Returns: The problems of the run, also reported on stderr as they happened.
    func run() -> [Problem] {
        guard !link.stopRequested else { return stop(after: []) }
        link.enter(.running)
        startServices(of: members)
        var problems = awaitReadiness(of: members, consequence: "stopping").map(\.problem)
        if problems.isEmpty {
            link.notify("READY=1\nSTATUS=\(status())")
        }
        var stopping = !problems.isEmpty
        let interval = context.healthInterval.map(MonotonicClock.nanoseconds)
        var nextCheck = interval.map { MonotonicClock.now + $0 }
        if let interval { link.reportHealth(goodUntil: MonotonicClock.now + 2 * interval) }
        while !stopping, !services.isEmpty || context.watch {
            guard let event = context.events.next(until: nextCheck) else {
                checkHealth()
                nextCheck = interval.map { MonotonicClock.now + $0 }
                continue
            }
            switch event {
            case .reload:
                link.notify("RELOADING=1\nMONOTONIC_USEC=\(MonotonicClock.now / 1000)")
                // A reload or rescan that fails changes nothing; what went wrong is on
                // stderr, and the exit status is the stop's.
                _ = reload()
                _ = rescan()
                link.notify("READY=1\nSTATUS=\(status())")
            case .rescan:
                _ = rescan()
                link.notify("STATUS=\(status())")
            case .serviceEnded(let index, let error):
                services[index] = nil
                if let error, let member = members.first(where: { $0.index == index }) {
                    problems.append(report(member.candidate.problem(
                        .serviceFailed, "service \(member.candidate.label) failed: \(error); stopping the others")))
                    stopping = true
                }
            case .stop:
                stopping = true
            }
        }
        return stop(after: problems)
    }

    /// Starts the services `members` registered, each as a task on the plugin threads.
    func startServices(of members: [Member]) {
        for member in members {
            guard let service = member.lifecycle.service else { continue }
            let executor = context.threads.executor(for: member.index, phase: .run)
            services[member.index] = Task(executorPreference: executor) { [events = context.events] in
                var error: String?
                do {
                    try await service()
                } catch let thrown {
                    error = "\(thrown)"
                }
                ExitTrap.endIfForkedCopy()
                executor.retarget(to: -1, phase: .unknown)
                events.post(.serviceEnded(plugin: member.index, error: error))
            }
        }
    }

    /// Delivers ``Readiness`` to `members`, in bootstrap order: the host is ready when
    /// every one that handles it has returned.
    ///
    /// - Parameter consequence: What the host does about one that does not get ready, as
    ///   the message says it: `stopping`.
    /// - Returns: The components that did not get ready, with why, also reported on stderr.
    func awaitReadiness(of members: [Member], consequence: String) -> [(member: Member, problem: Problem)] {
        deliver(Readiness.self, to: members, phase: .ready, within: context.timeout) { _ in Readiness() }.compactMap { member, outcome, _ in
            let label = member.candidate.label
            switch outcome {
            case .finished: return nil
            case .failed(let error):
                return (member, report(member.candidate.problem(.notReady, "plugin \(label) did not get ready: \(error); \(consequence)")))
            case .overran:
                return (member, report(member.candidate.problem(
                    .notReady,
                    "plugin \(label) did not get ready within \(TextFormat.seconds(context.timeout ?? .zero)) (--timeout); \(consequence)")))
            }
        }
    }

    // MARK: Stopping

    /// Stops in two steps: every component that handles ``Drain`` stops taking new work, in
    /// reverse bootstrap order; then the services are cancelled and waited for.
    ///
    /// - Returns: `problems`, and those of the stop.
    private func stop(after problems: [Problem]) -> [Problem] {
        link.notify("STOPPING=1\nSTATUS=Stopping")
        link.enter(.stopping)
        return problems + drain(members) + stopServices(of: members)
    }

    /// Delivers ``Drain`` to `members`, in reverse bootstrap order.
    ///
    /// - Returns: The drains that failed or overran (and were skipped), also on stderr.
    func drain(_ members: [Member]) -> [Problem] {
        deliver(Drain.self, to: members, phase: .drain, within: context.shutdownTimeout) { _ in Drain() }.compactMap { member, outcome, _ in
            let label = member.candidate.label
            switch outcome {
            case .finished: return nil
            case .failed(let error):
                return report(member.candidate.problem(.drainFailed, "plugin \(label) failed to drain: \(error)"))
            case .overran:
                return report(member.candidate.problem(
                    .drainFailed,
                    "plugin \(label) did not finish draining within \(TextFormat.seconds(context.shutdownTimeout ?? .zero)) "
                        + "(--shutdown-timeout); skipped"))
            }
        }
    }

    /// Cancels the services of `members` and waits up to the shutdown timeout for them to
    /// return; names those that did not.
    func stopServices(of members: [Member]) -> [Problem] {
        let stopping = members.filter { services[$0.index] != nil }
        guard !stopping.isEmpty else { return [] }
        let deadline = MonotonicClock.deadline(after: context.shutdownTimeout)
        for member in stopping {
            link.begin(.stop, of: member.index, within: context.shutdownTimeout, policy: .skip)
            // Cancelling runs the task's cancellation handlers, plugin code, on the
            // cancelling thread: a plugin thread, not this one.
            if let task = services[member.index] {
                context.threads.submit { thread in
                    thread.running(member.index, phase: .stop) { task.cancel() }
                    ExitTrap.endIfForkedCopy()
                }
            }
        }
        var left = Set(stopping.map(\.index))
        // What else happens meanwhile is handled once these have stopped.
        var others: [HostEvents.Event] = []
        while !left.isEmpty, let event = context.events.next(until: deadline) {
            if case .serviceEnded(let index, _) = event, left.remove(index) != nil {
                link.end(stepOf: index)
                services[index] = nil
            } else {
                others.append(event)
            }
        }
        for event in others { context.events.post(event) }
        return stopping.filter { left.contains($0.index) }.map { member in
            link.end(stepOf: member.index)
            services[member.index] = nil
            return report(member.candidate.problem(
                .shutdownTimedOut,
                "service \(member.candidate.label) did not stop within \(TextFormat.seconds(context.shutdownTimeout ?? .zero)) "
                    + "of being cancelled (--shutdown-timeout); left behind"))
        }
    }

    /// Delivers ``Shutdown`` to every running component that handles it, in reverse
    /// bootstrap order, each within the shutdown timeout.
    ///
    /// - Returns: The hooks that failed or overran (and were skipped), also on stderr.
    func shutDown() -> [Problem] {
        link.enter(.shuttingDown)
        return shutDown(members)
    }

    func shutDown(_ members: [Member]) -> [Problem] {
        deliver(Shutdown.self, to: members, phase: .shutdown, within: context.shutdownTimeout) { _ in Shutdown() }.compactMap { member, outcome, _ in
            let label = member.candidate.label
            switch outcome {
            case .finished: return nil
            case .failed(let error):
                return report(member.candidate.problem(.shutdownFailed, "plugin \(label) failed to shut down: \(error)"))
            case .overran:
                return report(member.candidate.problem(
                    .shutdownTimedOut,
                    "plugin \(label) did not shut down within \(TextFormat.seconds(context.shutdownTimeout ?? .zero)) "
                        + "(--shutdown-timeout); skipped"))
            }
        }
    }

    // MARK: Events

    /// Delivers the event `make` gives for each member to those of `members` that handle
    /// it, in the event's order, each within `timeout`.
    ///
    /// - Returns: The members that handle it, in that order, with how each call ended and,
    ///   when it finished, its answer.
    func deliver<Event: LifecycleEvent>(
        _ event: Event.Type, to members: [Member], phase: Phase, within timeout: Duration?, _ make: (Member) -> Event
    ) -> [(member: Member, outcome: PluginCallOutcome, answer: Event.Answer?)] {
        let handling = members.filter { $0.lifecycle.handles(Event.self) }
        let ordered = Event.order == .dependenciesFirst ? handling : handling.reversed()
        let answers = Answers<Event.Answer>(count: ordered.count)
        let calls = ordered.enumerated().map { position, member in
            let event = make(member)
            return PluginCall(plugin: member.index, phase: phase) {
                if let answer = try await member.lifecycle.deliver(event) { answers.set(position, answer) }
            }
        }
        let outcomes = PluginCalls(threads: context.threads).perform(calls, within: timeout)
        return ordered.indices.map { position in
            (ordered[position], outcomes[position], outcomes[position] == .finished ? answers.get(position) : nil)
        }
    }

    /// What `STATUS=` tells systemd: how many plugins run, and whether they are well.
    func status() -> String {
        let running = "\(members.count) plugin\(members.count == 1 ? "" : "s") running"
        guard !unwell.isEmpty else { return running }
        let worst = HealthCheck.reduce(unwell.map(\.health))
        let word = worst.severity >= 2 ? "unhealthy" : "degraded"
        return running + "; \(word): " + unwell.map { "\($0.member.name) (\($0.health.reason ?? ""))" }.joined(separator: ", ")
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

/// The answers of one delivery, written by the plugin threads.
private final class Answers<Answer: Sendable>: Sendable {
    private let values: Mutex<[Answer?]>

    init(count: Int) { values = Mutex(Array(repeating: nil, count: count)) }

    func set(_ position: Int, _ answer: Answer) { values.withLock { $0[position] = answer } }
    func get(_ position: Int) -> Answer? { values.withLock { $0[position] } }
}
