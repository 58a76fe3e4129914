import PluginABI
import Synchronization

/// Loads ordered plugins, then bootstraps their components: concurrently where the
/// dependency graph allows, on ``jobs`` threads of a ``PluginThreadPool``, under the
/// ``PluginGuard``. A plugin starts as soon as everything it depends on is done; a
/// synchronous bootstrap holds a thread until it returns, an asynchronous one that waits
/// holds none. With one thread, plugins start in the given order and only one runs code at
/// a time.
///
/// Each component receives the view of the components bootstrapped so far that holds
/// exactly its dependencies, so the outcome is the sequential one whatever order components
/// finish in; the final ``Bootstrapped`` holds them in the given (topological) order.
///
/// By default the first failure stops the run: bootstraps already running finish, no new
/// one starts. With ``keepGoing`` every plugin that does not require a failed plugin
/// still runs; the others are reported with the chain of reasons
/// (`Application did not run: it requires Domain, which failed: ...`).
struct ChainRunner: Sendable {
    /// The settings of each plugin, by name; plugins not named get empty settings.
    var settings: [String: Settings] = [:]
    /// Run everything that does not depend on a failure, instead of stopping at the first.
    var keepGoing = false
    /// How many threads run plugin code.
    var jobs = 1
    /// Watches each plugin's load and bootstrap.
    var pluginGuard: PluginGuard
    /// The start of the host, from which plugin times are measured.
    var epoch = ContinuousClock.now
    /// Answers whether the host was asked to stop; no plugin starts bootstrapping then.
    var stopRequested: @Sendable () -> Bool = { false }

    /// The result of a run.
    struct Outcome: Sendable {
        /// Every plugin of the order, with what happened to it.
        var plugins: [PluginOutcome]
        /// The failures, in the order they happened, then the plugins that did not run.
        var problems: [Problem] = []
        /// Every bootstrapped component, in the given order.
        var bootstrapped = Bootstrapped()
    }

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

    private struct Completion: Sendable {
        let index: Int
        /// `nil` when the run stopped before this bootstrap began.
        let error: String??
        let started: Duration
        let finished: Duration
    }

    /// Loads every plugin of `order`, then bootstraps their components.
    ///
    /// - Parameters:
    ///   - order: Plugins in bootstrap order: each after the plugins it depends on.
    ///   - graphFailures: Plugins that must not run because of a graph problem, which the
    ///     caller has reported already (only with ``keepGoing``).
    func run(_ order: [PluginCandidate], graphFailures: [String: Problem] = [:]) async -> Outcome {
        var outcome = Outcome(plugins: order.map { PluginOutcome(candidate: $0, status: .notRun) })
        var fates = graphFailures.mapValues { Fate.failed($0.message) }
        var stopped = false
        let clock = ContinuousClock()
        let pool = PluginThreadPool(threads: max(1, min(jobs, order.count, FatalSignals.slotCount - 1)))
        let halted = Flag()
        // How the crash handler, the watchdog and the report name each plugin: made once.
        var subjects = [String](repeating: "", count: order.count)

        func blocker(of candidate: PluginCandidate) -> String? {
            guard !fates.isEmpty else { return nil }
            for required in candidate.manifest.requires {
                if let fate = fates[required] { return "it requires \(required), which \(fate.text)" }
            }
            return nil
        }

        func markNotRun(_ index: Int, because reason: String) {
            let candidate = order[index]
            fates[candidate.name] = .didNotRun(reason)
            outcome.plugins[index].reason = reason
            if keepGoing && !stopped {
                outcome.problems.append(Problem(
                    .dependencyFailed, plugin: candidate.name, file: candidate.file, "\(candidate.name) did not run: \(reason)"))
            }
        }

        func markFailed(_ index: Int, _ problem: Problem, cause: String) {
            fates[order[index].name] = .failed(cause)
            outcome.plugins[index].status = .failed
            outcome.plugins[index].reason = cause
            outcome.problems.append(problem)
            if !keepGoing {
                stopped = true
                halted.raise()
            }
        }

        // Loading: in order, one at a time (the dynamic loader serialises dlopen anyway), in
        // one task on a plugin thread, which names each plugin to the crash handler itself.
        await withTaskExecutorPreference(pool.executor(label: "plugin-host", phase: "loading plugins")) {
            for (index, candidate) in order.enumerated() {
                if let problem = graphFailures[candidate.name] {
                    outcome.plugins[index].status = .failed
                    outcome.plugins[index].reason = problem.message
                    continue
                }
                if stopped || stopRequested() { break }
                if let reason = blocker(of: candidate) {
                    markNotRun(index, because: reason)
                    continue
                }
                let start = clock.now
                outcome.plugins[index].loadStarted = start - epoch
                let subject = "plugin \(candidate.label)"
                subjects[index] = subject
                FatalSignals.describeCurrentThread(subject: subject, phase: "load", isPluginCode: true)
                let loaded = Result { () throws(Problem) in
                    try pluginGuard.watchingSynchronously(subject, during: .load) { () throws(Problem) in
                        try PluginLoader.component(of: candidate)
                    }
                }
                switch loaded {
                case .success(let component): outcome.plugins[index].component = component
                case .failure(let problem): markFailed(index, problem, cause: problem.message)
                }
                FatalSignals.describeCurrentThread(subject: "plugin-host", phase: "loading plugins")
                outcome.plugins[index].loadDuration = clock.now - start
            }
        }

        // Bootstrapping: a plugin is ready when every plugin it depends on is done.
        var indexByName: [String: Int] = [:]
        for (index, candidate) in order.enumerated() { indexByName[candidate.name] = index }
        var waiting = [Int](repeating: 0, count: order.count)
        var dependents = [[Int]](repeating: [], count: order.count)
        for (index, candidate) in order.enumerated() {
            for dependency in candidate.manifest.identity.dependencies {
                guard let dependencyIndex = indexByName[dependency], dependencyIndex != index else { continue }
                waiting[index] += 1
                dependents[dependencyIndex].append(index)
            }
        }
        var done = [Bool](repeating: false, count: order.count)
        // Six levels hold any number of plugins; the walks through them cost nothing here.
        var ready = RankQueue<6>(capacity: order.count)
        // The components bootstrapped so far, in the order they finished: each bootstrap
        // takes its view from it when it begins (everything it depends on is in it).
        let completed = Shared(Bootstrapped())

        func finish(_ index: Int) {
            done[index] = true
            for dependent in dependents[index] {
                waiting[dependent] -= 1
                if waiting[dependent] == 0 { ready.insert(dependent) }
            }
        }

        for index in order.indices where waiting[index] == 0 { ready.insert(index) }
        // The scheduler runs on the plugin threads too: a finishing bootstrap and the
        // scheduler's next step then share a thread instead of waking one another.
        await withTaskExecutorPreference(pool.executor(label: "plugin-host", phase: "scheduling bootstraps")) {
        await withTaskGroup(of: Completion.self) { group in
            while true {
                while let index = ready.popMin() {
                    let candidate = order[index]
                    guard !stopped, !stopRequested(), let component = outcome.plugins[index].component,
                        outcome.plugins[index].status == .notRun, outcome.plugins[index].reason == nil
                    else {
                        finish(index)
                        continue
                    }
                    if let reason = blocker(of: candidate) {
                        markNotRun(index, because: reason)
                        finish(index)
                        continue
                    }
                    let ownSettings = settings.isEmpty ? nil : settings[candidate.name]
                    let subject = subjects[index]
                    group.addTask(executorPreference: pool.executor(label: subject, phase: PluginGuard.Phase.bootstrap.rawValue)) {
                        [pluginGuard, epoch, keepGoing] in
                        let started = ContinuousClock.now - epoch
                        guard !halted.isRaised else {
                            return Completion(index: index, error: nil, started: started, finished: started)
                        }
                        let view = completed.withLock { $0.view(for: candidate.manifest.identity, settings: ownSettings) }
                        var failure: String?
                        do {
                            try await pluginGuard.watching(subject, during: .bootstrap) {
                                try await component.bootstrap(view)
                            }
                            // Published before the next bootstrap on this thread begins.
                            completed.withLock { chain in
                                chain = (try? chain.appending(component, as: candidate.manifest.identity)) ?? chain
                            }
                        } catch {
                            failure = "\(error)"
                            // Fail fast: no bootstrap that has not begun may begin now.
                            if !keepGoing { halted.raise() }
                        }
                        return Completion(index: index, error: .some(failure), started: started, finished: ContinuousClock.now - epoch)
                    }
                }
                guard let completion = await group.next() else { break }
                let index = completion.index
                guard let result = completion.error else {
                    finish(index)
                    continue
                }
                let candidate = order[index]
                outcome.plugins[index].bootstrapStarted = completion.started
                outcome.plugins[index].bootstrapFinished = completion.finished
                outcome.plugins[index].bootstrapDuration = completion.finished - completion.started
                if let error = result {
                    markFailed(
                        index,
                        Problem(.bootstrapFailed, plugin: candidate.name, file: candidate.file, "\(subjects[index]) failed to bootstrap: \(error)"),
                        cause: error)
                } else {
                    outcome.plugins[index].status = .bootstrapped
                }
                finish(index)
            }
        }
        }

        // The final chain, in the given order, whatever order the components finished in.
        for plugin in outcome.plugins where plugin.status == .bootstrapped {
            if let component = plugin.component {
                outcome.bootstrapped = (try? outcome.bootstrapped.appending(component, as: plugin.candidate.manifest.identity))
                    ?? outcome.bootstrapped
            }
        }
        if stopRequested() {
            for index in order.indices where outcome.plugins[index].status == .notRun && outcome.plugins[index].reason == nil {
                outcome.plugins[index].reason = "the host was asked to stop before it started"
            }
        }
        return stopped ? notRunSummary(outcome) : outcome
    }

    /// Fail-fast: the first problem gains the list of the plugins that did not run.
    private func notRunSummary(_ outcome: Outcome) -> Outcome {
        var outcome = outcome
        let notRun = outcome.plugins.filter { $0.status == .notRun }.map(\.candidate.name)
        if !notRun.isEmpty, let first = outcome.problems.first {
            outcome.problems[0] = Problem(
                first.code, plugin: first.plugin, file: first.file, first.message + "; not run: \(notRun.joined(separator: ", "))")
        }
        return outcome
    }
}

/// A value shared by the scheduler and the tasks it starts.
private final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { value.withLock { body(&$0) } }
}

/// A flag the scheduler and the tasks it starts can raise and read without a lock.
private final class Flag: Sendable {
    private let raised = Atomic(false)

    var isRaised: Bool { raised.load(ordering: .acquiring) }

    func raise() { raised.store(true, ordering: .releasing) }
}
