import PluginABI

/// Loads ordered plugins and bootstraps their components as a reduce over an immutable
/// ``Bootstrapped``.
///
/// By default the first failure stops the run. With ``keepGoing`` every plugin that does
/// not require a failed plugin still runs; the others are reported with the chain of
/// reasons (`Application did not run: it requires Domain, which failed: ...`).
struct ChainRunner {
    /// The settings of each plugin, by name; plugins not named get empty settings.
    var settings: [String: Settings] = [:]
    /// Run everything that does not depend on a failure, instead of stopping at the first.
    var keepGoing = false
    /// Watches each plugin's load and bootstrap; see ``PluginGuard``.
    var pluginGuard: PluginGuard?

    /// The result of a run.
    struct Outcome {
        /// Every plugin of the order, with what happened to it.
        var plugins: [PluginOutcome]
        /// The failures, in the order they happened, then the plugins that did not run.
        var problems: [Problem] = []
        /// The chain holding every bootstrapped component.
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

    /// Loads every plugin of `order`, then bootstraps their components in that order.
    ///
    /// - Parameters:
    ///   - order: Plugins in bootstrap order.
    ///   - graphFailures: Plugins that must not run because of a graph problem, which the
    ///     caller has reported already (only with ``keepGoing``).
    func run(_ order: [PluginCandidate], graphFailures: [String: Problem] = [:]) -> Outcome {
        var outcome = Outcome(plugins: order.map { PluginOutcome(candidate: $0, status: .notRun) })
        var fates = graphFailures.mapValues { Fate.failed($0.message) }
        let clock = ContinuousClock()

        /// The reason `candidate` cannot run because of a required plugin, if any.
        func blocker(of candidate: PluginCandidate) -> String? {
            for required in candidate.manifest.requires {
                if let fate = fates[required] { return "it requires \(required), which \(fate.text)" }
            }
            return nil
        }

        func markNotRun(_ index: Int, because reason: String) {
            let candidate = order[index]
            fates[candidate.name] = .didNotRun(reason)
            outcome.plugins[index].reason = reason
            if keepGoing {
                outcome.problems.append(Problem(
                    .dependencyFailed, plugin: candidate.name, file: candidate.file, "\(candidate.name) did not run: \(reason)"))
            }
        }

        func markFailed(_ index: Int, _ problem: Problem, cause: String) {
            fates[order[index].name] = .failed(cause)
            outcome.plugins[index].status = .failed
            outcome.plugins[index].reason = cause
            outcome.problems.append(problem)
        }

        var components: [Int: any Bootstrapping] = [:]
        for (index, candidate) in order.enumerated() {
            if let problem = graphFailures[candidate.name] {
                outcome.plugins[index].status = .failed
                outcome.plugins[index].reason = problem.message
                continue
            }
            if let reason = blocker(of: candidate) {
                markNotRun(index, because: reason)
                continue
            }
            let start = clock.now
            do {
                components[index] = try pluginGuard.watching(candidate, during: .load) { () throws(Problem) in
                    try PluginLoader.component(of: candidate)
                }
                outcome.plugins[index].loadDuration = clock.now - start
            } catch {
                outcome.plugins[index].loadDuration = clock.now - start
                markFailed(index, error, cause: error.message)
                if !keepGoing { return stopped(outcome, after: index, order) }
            }
        }

        for (index, candidate) in order.enumerated() {
            guard let component = components[index] else { continue }
            if let reason = blocker(of: candidate) {
                markNotRun(index, because: reason)
                continue
            }
            let start = clock.now
            do {
                outcome.bootstrapped = try pluginGuard.watching(candidate, during: .bootstrap) {
                    try outcome.bootstrapped.bootstrap(
                        component, as: candidate.manifest.identity,
                        settings: settings[candidate.name] ?? Settings(for: candidate.name))
                }
                outcome.plugins[index].bootstrapDuration = clock.now - start
                outcome.plugins[index].status = .bootstrapped
            } catch {
                outcome.plugins[index].bootstrapDuration = clock.now - start
                markFailed(
                    index,
                    Problem(
                        .bootstrapFailed, plugin: candidate.name, file: candidate.file,
                        "plugin \(candidate.label) failed to bootstrap: \(error)"),
                    cause: "\(error)")
                if !keepGoing { return stopped(outcome, after: index, order) }
            }
        }
        return outcome
    }

    /// Fail-fast: the last problem gains the list of the plugins that did not run.
    private func stopped(_ outcome: Outcome, after index: Int, _ order: [PluginCandidate]) -> Outcome {
        var outcome = outcome
        let notRun = outcome.plugins.filter { $0.status == .notRun }.map(\.candidate.name)
        if !notRun.isEmpty, let last = outcome.problems.popLast() {
            outcome.problems.append(Problem(
                last.code, plugin: last.plugin, file: last.file, last.message + "; not run: \(notRun.joined(separator: ", "))"))
        }
        return outcome
    }
}

extension Optional where Wrapped == PluginGuard {
    /// Runs `body` under the guard, or plainly when there is none.
    func watching<Result, Failure: Error>(
        _ candidate: PluginCandidate, during phase: PluginGuard.Phase, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard let pluginGuard = self else { return try body() }
        return try pluginGuard.watching(candidate, during: phase, body)
    }
}
