import PluginABI
import Synchronization

/// Loads plugins in bootstrap order, then bootstraps their components as their
/// dependencies allow, and reports what happened to each.
///
/// All plugin code runs on the ``PluginThreads`` (`--jobs` of them), never on the calling
/// thread, which only waits. Loading is one piece of work on one of them: the plugins load
/// one after another, as the dynamic loader serialises `dlopen` anyway. Then a plugin's
/// bootstrap starts as soon as every plugin it depends on is done, on the thread that
/// finished the last of them, inline until it first suspends: a chain of bootstraps that
/// never wait costs no hand-off between threads. A synchronous bootstrap holds its thread
/// until it returns; an asynchronous one that waits holds none. With one thread, plugins
/// start in the given order and only one runs code at a time.
///
/// Each load and bootstrap is a step in the supervision page with a deadline of `timeout`;
/// the supervisor ends the host when one overruns.
///
/// Each component receives the view of the components bootstrapped so far that holds
/// exactly its dependencies, so the outcome is the sequential one whatever order components
/// finish in; the final ``Bootstrapped`` holds them in the given (topological) order.
///
/// By default the first failure stops the run: bootstraps already running finish, no new
/// one starts. With ``keepGoing`` every plugin that does not require a failed plugin still
/// runs; the others are reported with the chain of reasons (`Application did not run: it
/// requires Domain, which failed: ...`).
struct ChainRunner {
    /// The settings of each plugin, by name; plugins not named get empty settings.
    var settings: [String: Settings] = [:]
    /// Run everything that does not depend on a failure, instead of stopping at the first.
    var keepGoing = false
    /// The threads that run plugin code.
    let threads: PluginThreads
    /// How long one plugin may take to load, and then to bootstrap; `nil` for no limit.
    var timeout: Duration?
    /// The start of the host, from which plugin times are measured.
    var epoch = ContinuousClock.now
    /// The host's environment as it started, which components see.
    var environment: [String: String] = [:]
    /// The sockets the host listens on, by name, which components obtain from the chain.
    var sockets: [String: Int32] = [:]
    /// What the builds before handed over, which each component receives as it bootstraps.
    var inbox = HandOffInbox()

    /// The result of a run.
    struct Outcome: Sendable {
        /// Every plugin of the order, with what happened to it.
        var plugins: [PluginOutcome]
        /// The failures, in the order they happened, then the plugins that did not run.
        var problems: [Problem] = []
        /// Every bootstrapped component, in the given order.
        var bootstrapped = Bootstrapped()
    }

    /// Loads every plugin of a resolution's order, then bootstraps their components;
    /// returns when all are done.
    ///
    /// - Parameter resolution: Plugins in bootstrap order, each after the plugins it
    ///   depends on, their graph, and the plugins that must not run because of a graph
    ///   problem, which the caller has reported already (only with ``keepGoing``).
    /// - Parameters:
    ///   - base: The components already running, which the plugins may depend on; the
    ///     outcome's chain holds them first.
    ///   - first: The number of the first plugin in the supervision page, where the
    ///     resolution's plugins have been published.
    ///   - beforeBootstrap: Called with the names of the plugins that failed to load, once
    ///     every plugin is loaded; when it returns `false`, no plugin bootstraps.
    func run(
        _ resolution: DependencyResolver.Resolution, onto base: Bootstrapped? = nil, numberedFrom first: PluginNumber = PluginNumber(0),
        beforeBootstrap: (_ failedToLoad: Set<String>) -> Bool = { _ in true }
    ) -> Outcome {
        let run = ChainRun(
            runner: self, resolution: resolution, base: base ?? Bootstrapped(environment: environment, sockets: sockets), first: first)
        run.load()
        if beforeBootstrap(run.failedToLoad) { run.bootstrap() }
        return run.outcome()
    }
}

/// The state of one ``ChainRunner/run(_:)``, shared by the threads that load
/// and bootstrap, behind one lock.
private final class ChainRun: Sendable {
    /// Why a plugin is out of the run, as the reason chain of a dependent quotes it.
    private enum Fate {
        case failed(String)
        case didNotRun(String)

        var text: String {
            switch self {
            case .failed(let cause): "failed: \(cause)"
            case .didNotRun(let reason): "did not run: \(reason)"
            }
        }
    }

    private struct State {
        var plugins: [PluginOutcome]
        var problems: [Problem] = []
        var fates: [String: Fate]
        /// Set by the first failure unless keeping going: nothing new starts.
        var stopped = false
        /// The plugins whose dependencies are all done, to bootstrap next.
        var ready: ReadyNodes
        var unfinished: Int
        /// The components bootstrapped so far, in the order they finished: each bootstrap
        /// takes its view from it (everything it depends on is in it).
        var completed: Bootstrapped
    }

    private let runner: ChainRunner
    private let order: [PluginCandidate]
    /// The number in the supervision page of `order[0]`.
    private let first: PluginNumber
    private let base: Bootstrapped
    private let graphFailures: [String: Problem]
    private let state: Mutex<State>
    private let done = Semaphore()
    private let clock = ContinuousClock()

    init(runner: ChainRunner, resolution: DependencyResolver.Resolution, base: Bootstrapped, first: PluginNumber) {
        self.runner = runner
        self.first = first
        self.base = base
        let order = resolution.order
        self.order = order
        graphFailures = resolution.failures
        // Nothing waits for a plugin with a graph problem (it does not run): its dependents
        // learn of its failure when their turn comes.
        let failed = Set(order.indices.filter { resolution.failures[order[$0].name] != nil })
        state = Mutex(State(
            plugins: order.map { PluginOutcome(candidate: $0, status: .notRun) },
            fates: resolution.failures.mapValues { Fate.failed($0.message) },
            ready: ReadyNodes(resolution.graph, ignoringEdgesFrom: failed), unfinished: order.count,
            completed: base))
    }

    private var link: WorkerLink { runner.threads.link }

    private var stopRequested: Bool { link.stopRequested }

    // MARK: Loading

    /// Loads the plugins in order, on one plugin thread.
    func load() {
        guard !order.isEmpty else { return }
        link.enter(.loading)
        runner.threads.submit { [self] thread in
            for index in order.indices {
                guard let candidate = loadable(index) else {
                    if state.withLock({ $0.stopped }) || stopRequested { break }
                    continue
                }
                let start = clock.now
                let number = first.advanced(by: index)
                link.begin(.load, of: number, within: runner.timeout, policy: .endHost)
                let loaded = thread.running(number, phase: .load) {
                    Result { () throws(Problem) in
                        try PluginLoader.componentType(of: candidate) { link.recordCode(of: number, at: $0) }
                    }
                }
                ExitTrap.endIfForkedCopy()
                link.end(stepOf: number)
                let duration = clock.now - start
                state.withLock { state in
                    state.plugins[index].loadStarted = start - runner.epoch
                    state.plugins[index].loadDuration = duration
                    switch loaded {
                    case .success(let type): state.plugins[index].componentType = type
                    case .failure(let problem): markFailed(index, problem, cause: problem.message, in: &state)
                    }
                }
            }
            done.signal()
        }
        done.wait(timeout: nil)
    }

    /// The plugins that failed to load.
    var failedToLoad: Set<String> {
        state.withLock { state in
            Set(state.plugins.filter { $0.status == .failed && $0.componentType == nil }.map(\.candidate.name))
        }
    }

    /// The candidate at `index` when it is to be loaded; otherwise records why not.
    private func loadable(_ index: Int) -> PluginCandidate? {
        let candidate = order[index]
        return state.withLock { state -> PluginCandidate? in
            if let problem = graphFailures[candidate.name] {
                state.plugins[index].status = .failed
                state.plugins[index].reason = problem.message
                return nil
            }
            if state.stopped || stopRequested { return nil }
            if let reason = blocker(of: candidate, in: state) {
                markNotRun(index, because: reason, in: &state)
                return nil
            }
            return candidate
        }
    }

    // MARK: Bootstrapping

    /// Bootstraps the loaded components as their dependencies allow; returns when every
    /// plugin is done, bootstrapped or not.
    func bootstrap() {
        guard !order.isEmpty else { return }
        link.enter(.bootstrapping)
        submitStarts(state.withLock { $0.ready.count })
        done.wait(timeout: nil)
        runner.inbox.finishAll()
    }

    /// Takes the next ready plugin, the first in bootstrap order, and starts its bootstrap
    /// on this thread, or passes it over when it is not to run.
    private func startNext(on thread: PluginThread) {
        let now = clock.now
        var newlyReady = 0
        let next = state.withLock { state -> (index: Int, type: any Bootstrapping.Type, view: Bootstrapped)? in
            guard let index = state.ready.next() else { return nil }
            let candidate = order[index]
            let plugin = state.plugins[index]
            guard !state.stopped, !stopRequested, let type = plugin.componentType, plugin.status == .notRun, plugin.reason == nil
            else {
                newlyReady = finish(index, in: &state)
                return nil
            }
            if let reason = blocker(of: candidate, in: state) {
                markNotRun(index, because: reason, in: &state)
                newlyReady = finish(index, in: &state)
                return nil
            }
            state.plugins[index].bootstrapStarted = now - runner.epoch
            let settings = runner.settings.isEmpty ? nil : runner.settings[candidate.name]
            let view = state.completed.view(
                for: candidate.manifest.identity, settings: settings, lifecycle: plugin.lifecycle,
                handedOver: runner.inbox.handedOver(to: candidate.name))
            return (index, type, view)
        }
        submitStarts(newlyReady)
        guard let (index, type, view) = next else { return }
        let number = first.advanced(by: index)
        link.begin(.bootstrap, of: number, within: runner.timeout, policy: .endHost)
        let executor = runner.threads.executor(for: number, phase: .bootstrap)
        thread.running(number, phase: .bootstrap) {
            _ = Task.immediate(executorPreference: executor) { [self] in
                let outcome: Result<any Bootstrapping, BootstrapFailure>
                do {
                    outcome = .success(try await type.init(view))
                } catch {
                    outcome = .failure(BootstrapFailure(description: "\(error)"))
                }
                ExitTrap.endIfForkedCopy()
                // The plugin's code is done: its thread runs host code from here on, and must
                // not be blamed for what a later phase's plugin does.
                executor.retarget(to: nil, phase: .unknown)
                complete(index, outcome)
            }
        }
    }

    /// Records the end of a bootstrap and starts what it made ready.
    private func complete(_ index: Int, _ outcome: Result<any Bootstrapping, BootstrapFailure>) {
        let finished = clock.now - runner.epoch
        link.end(stepOf: first.advanced(by: index))
        runner.inbox.finish(order[index].name)
        let newlyReady = state.withLock { state -> Int in
            let candidate = order[index]
            state.plugins[index].bootstrapFinished = finished
            state.plugins[index].bootstrapDuration = finished - (state.plugins[index].bootstrapStarted ?? finished)
            switch outcome {
            case .failure(let failure):
                markFailed(
                    index,
                    candidate.problem(.bootstrapFailed, "plugin \(candidate.label) failed to bootstrap: \(failure)"),
                    cause: failure.description, in: &state)
            case .success(let component):
                state.plugins[index].status = .bootstrapped
                state.plugins[index].component = component
                state.completed = (try? state.completed.appending(component, as: candidate.manifest.identity)) ?? state.completed
            }
            return finish(index, in: &state)
        }
        submitStarts(newlyReady)
    }

    private func submitStarts(_ count: Int) {
        for _ in 0..<count { runner.threads.submit { [self] in startNext(on: $0) } }
    }

    /// Marks a plugin done: its dependents wait for one plugin less.
    ///
    /// - Returns: How many plugins became ready.
    private func finish(_ index: Int, in state: inout State) -> Int {
        state.unfinished -= 1
        if state.unfinished == 0 { done.signal() }
        return state.ready.finish(index)
    }

    // MARK: Failures

    private func blocker(of candidate: PluginCandidate, in state: State) -> String? {
        guard !state.fates.isEmpty else { return nil }
        for required in candidate.manifest.requires {
            if let fate = state.fates[required] { return "it requires \(required), which \(fate.text)" }
        }
        return nil
    }

    private func markNotRun(_ index: Int, because reason: String, in state: inout State) {
        let candidate = order[index]
        state.fates[candidate.name] = .didNotRun(reason)
        state.plugins[index].reason = reason
        if runner.keepGoing && !state.stopped {
            state.problems.append(candidate.problem(.dependencyFailed, "\(candidate.name) did not run: \(reason)"))
        }
    }

    private func markFailed(_ index: Int, _ problem: Problem, cause: String, in state: inout State) {
        link.recordFailure(of: first.advanced(by: index))
        state.fates[order[index].name] = .failed(cause)
        state.plugins[index].status = .failed
        state.plugins[index].reason = cause
        state.problems.append(problem)
        if !runner.keepGoing { state.stopped = true }
    }

    // MARK: The outcome

    func outcome() -> ChainRunner.Outcome {
        let stopRequested = stopRequested
        return state.withLock { state in
            var outcome = ChainRunner.Outcome(plugins: state.plugins, problems: state.problems, bootstrapped: base)
            // The final chain: the base, then the given order, whatever order the components
            // finished in.
            for plugin in outcome.plugins where plugin.status == .bootstrapped {
                if let component = plugin.component {
                    outcome.bootstrapped = (try? outcome.bootstrapped.appending(component, as: plugin.candidate.manifest.identity))
                        ?? outcome.bootstrapped
                }
            }
            if stopRequested {
                for index in order.indices where outcome.plugins[index].status == .notRun && outcome.plugins[index].reason == nil {
                    outcome.plugins[index].reason = "the host was asked to stop before it started"
                }
            }
            // Fail-fast: the first problem gains the list of the plugins that did not run.
            let notRun = outcome.plugins.filter { $0.status == .notRun }.map(\.candidate.name)
            if state.stopped, !notRun.isEmpty, let first = outcome.problems.first {
                outcome.problems[0] = Problem(
                    first.code, plugin: first.plugin, file: first.file, first.message + "; not run: \(notRun.joined(separator: ", "))")
            }
            return outcome
        }
    }
}

/// A bootstrap that threw: the error as the plugin describes it, read on the plugin's thread.
private struct BootstrapFailure: Error, CustomStringConvertible {
    let description: String
}
