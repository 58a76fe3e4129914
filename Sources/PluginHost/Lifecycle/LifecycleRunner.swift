import PluginABI
import Synchronization

/// The phases after the chain: the run phase of services, reloads on SIGHUP, and the
/// shutdown in reverse bootstrap order, each an event delivered to the components that
/// registered for it.
///
/// ```
///  bootstrap ──▶ run (services) ──▶ shutdown ──▶ exit
///     │            │   ▲   SIGHUP: reload, check then apply, in bootstrap order
///     │            └───┘
///     └─ failure ─────────────────▶ shutdown (what bootstrapped) ──▶ exit 1
/// ```
///
/// The worker's driving thread drives it and only waits; every handler runs on the plugin
/// threads, within its deadline (``PluginCalls``), and the services' tasks prefer them too.
struct LifecycleRunner {
    /// A bootstrapped plugin.
    struct Member: Sendable {
        /// The plugin's number in the supervision page.
        let index: Int
        let candidate: PluginCandidate
        let component: any Bootstrapping
        /// What the component registered while it bootstrapped.
        let lifecycle: PluginABI.Lifecycle
    }

    /// The bootstrapped plugins, in bootstrap order.
    let members: [Member]
    let events: HostEvents
    /// Threads for plugin code that may never return: a new one whenever all are busy.
    let threads: PluginThreads
    let console: Console
    /// How long one shutdown hook, or the services together, may take to stop.
    var shutdownTimeout: Duration?
    /// How long one reload hook may take.
    var reloadTimeout: Duration?
    /// Reads the configuration file again: the settings of each plugin, or a problem.
    var readConfiguration: @Sendable () -> Result<[String: Settings], Problem>

    private var link: WorkerLink { threads.link }

    /// Runs the services until the host is asked to stop or they have all ended, handling
    /// reloads meanwhile.
    ///
    /// - Returns: The services that failed, or did not stop in time once cancelled.
    func runServices() -> [Problem] {
        let services = members.compactMap { member in member.lifecycle.service.map { (member, $0) } }
        guard !services.isEmpty, !link.stopRequested else { return [] }
        link.enter(.running)
        var tasks: [Int: Task<Void, Never>] = [:]
        for (member, service) in services {
            let executor = threads.executor(for: member.index, phase: .run)
            tasks[member.index] = Task(executorPreference: executor) { [events] in
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
        var problems: [Problem] = []
        var running = Set(tasks.keys)
        var stopping = false
        while let event = events.next() {
            switch event {
            case .reload:
                // A failed reload leaves the components as they were; the host keeps running.
                if !stopping { _ = reload() }
            case .serviceEnded(let index, let error):
                running.remove(index)
                if let error, let member = members.first(where: { $0.index == index }) {
                    problems.append(report(member.candidate.problem(
                        .serviceFailed, "service \(member.candidate.label) failed: \(error); stopping the others")))
                    stopping = true
                }
            case .stop:
                stopping = true
            }
            if running.isEmpty { break }
            if stopping {
                problems += stop(running, tasks: tasks)
                break
            }
        }
        return problems
    }

    /// Cancels the running services and waits up to the shutdown timeout for them to
    /// return; names those that did not.
    private func stop(_ running: Set<Int>, tasks: [Int: Task<Void, Never>]) -> [Problem] {
        link.enter(.stopping)
        let deadline = MonotonicClock.deadline(after: shutdownTimeout)
        for index in running.sorted() {
            link.begin(.stop, of: index, within: shutdownTimeout, policy: .skip)
            // Cancelling runs the task's cancellation handlers, plugin code, on the
            // cancelling thread: a plugin thread, not this one.
            if let task = tasks[index] {
                threads.submit { thread in
                    thread.running(index, phase: .stop) { task.cancel() }
                    ExitTrap.endIfForkedCopy()
                }
            }
        }
        var left = running
        while !left.isEmpty, let event = events.next(until: deadline) {
            if case .serviceEnded(let index, _) = event, left.remove(index) != nil { link.end(stepOf: index) }
        }
        return members.filter { left.contains($0.index) }.map { member in
            link.end(stepOf: member.index)
            return report(member.candidate.problem(
                .shutdownTimedOut,
                "service \(member.candidate.label) did not stop within \(TextFormat.seconds(shutdownTimeout ?? .zero)) "
                    + "of being cancelled (--shutdown-timeout); left behind"))
        }
    }

    /// Reads the configuration file again and gives every component that handles reloads
    /// its new settings in two steps, in bootstrap order: each checks them
    /// (``ReloadCheck``); only when every one accepted do they all apply them (``Reload``).
    ///
    /// - Returns: The refusals, or the applications that failed or overran, also reported
    ///   on stderr. After a refusal nothing changed anywhere.
    func reload() -> [Problem] {
        let settings: [String: Settings]
        switch readConfiguration() {
        case .failure(let problem):
            return [report(Problem(problem.code, plugin: nil, file: problem.file, "reload refused: \(problem.message); nothing was reloaded"))]
        case .success(let read):
            settings = read
        }
        func own(_ member: Member) -> Settings { settings[member.candidate.name] ?? Settings([:], for: member.candidate.name) }

        let refusals = deliver(phase: .reload, within: reloadTimeout) { ReloadCheck(settings: own($0)) }
            .compactMap { member, outcome -> Problem? in
                let candidate = member.candidate
                switch outcome {
                case .finished: return nil
                case .failed(let error):
                    return candidate.problem(.reloadFailed, "plugin \(candidate.label) refused the new settings: \(error)")
                case .overran:
                    return candidate.problem(
                        .reloadFailed, "plugin \(candidate.label) did not finish checking the new settings within "
                            + "\(TextFormat.seconds(reloadTimeout ?? .zero)) (--timeout); left running")
                }
            }
        guard refusals.isEmpty else {
            let problems = refusals.map(report)
            console.write("plugin-host: reload refused by \(refusals.compactMap(\.plugin).joined(separator: ", ")); "
                + "nothing was reloaded: every plugin keeps its settings\n", to: .error)
            return problems
        }

        var problems: [Problem] = []
        var reloaded: [String] = []
        for (member, outcome) in deliver(phase: .reload, within: reloadTimeout, { Reload(settings: own($0)) }) {
            let candidate = member.candidate
            switch outcome {
            case .finished:
                reloaded.append(candidate.name)
            case .failed(let error):
                problems.append(report(candidate.problem(
                    .reloadFailed, "plugin \(candidate.label) accepted the new settings but failed to apply them: \(error)")))
            case .overran:
                problems.append(report(candidate.problem(
                    .reloadFailed, "plugin \(candidate.label) did not finish applying its new settings within "
                        + "\(TextFormat.seconds(reloadTimeout ?? .zero)) (--timeout); left running")))
            }
        }
        console.write("plugin-host: reloaded \(reloaded.isEmpty ? "no plugins" : reloaded.joined(separator: ", "))\n", to: .error)
        return problems
    }

    /// Delivers ``Shutdown`` to every component that handles it, in reverse bootstrap
    /// order, each within the shutdown timeout.
    ///
    /// - Returns: The hooks that failed or overran (and were skipped), also on stderr.
    func shutDown() -> [Problem] {
        link.enter(.shuttingDown)
        var problems: [Problem] = []
        for (member, outcome) in deliver(phase: .shutdown, within: shutdownTimeout, { _ in Shutdown() }) {
            let candidate = member.candidate
            switch outcome {
            case .finished:
                break
            case .failed(let error):
                problems.append(report(candidate.problem(.shutdownFailed, "plugin \(candidate.label) failed to shut down: \(error)")))
            case .overran:
                problems.append(report(candidate.problem(
                    .shutdownTimedOut, "plugin \(candidate.label) did not shut down within "
                        + "\(TextFormat.seconds(shutdownTimeout ?? .zero)) (--shutdown-timeout); skipped")))
            }
        }
        return problems
    }

    /// Delivers the event `make` gives for each member to every member that handles it, in
    /// the event's order, each within `timeout`.
    ///
    /// - Returns: The members that handle it, in that order, with how each call ended.
    private func deliver<Event: LifecycleEvent>(
        phase: Phase, within timeout: Duration?, _ make: (Member) -> Event
    ) -> [(member: Member, outcome: PluginCallOutcome)] {
        let handling = members.filter { $0.lifecycle.handles(Event.self) }
        let ordered = Event.order == .dependenciesFirst ? handling : handling.reversed()
        let calls = ordered.map { member in
            let event = make(member)
            return PluginCall(plugin: member.index, phase: phase) { _ = try await member.lifecycle.deliver(event) }
        }
        return Array(zip(ordered, PluginCalls(threads: threads).perform(calls, within: timeout)))
    }

    /// Prints a problem of the running host on stderr at once.
    private func report(_ problem: Problem) -> Problem {
        console.write(Diagnostics.text(problems: [problem]), to: .error)
        return problem
    }
}
