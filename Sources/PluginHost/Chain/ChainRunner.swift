import PluginABI

/// Loads ordered plugins and bootstraps their components as a reduce over an immutable
/// ``Bootstrapped``, stopping at the first failure.
struct ChainRunner {
    /// The settings of each plugin, by name; plugins not named get empty settings.
    var settings: [String: Settings] = [:]

    /// The result of a run.
    struct Outcome {
        /// Every plugin of the order, with what happened to it.
        var plugins: [PluginOutcome]
        /// The problem that stopped the run, if any.
        var problem: Problem?
        /// The chain holding every bootstrapped component.
        var bootstrapped: Bootstrapped
    }

    /// Loads every plugin of `order` (which must be a valid bootstrap order), then
    /// bootstraps their components in that order.
    ///
    /// Loading comes first so that a plugin that cannot be loaded stops the run before any
    /// component bootstraps. The first failure marks its plugin `failed` and every later
    /// one `not-run`.
    func run(_ order: [PluginCandidate]) -> Outcome {
        var outcome = Outcome(
            plugins: order.map { PluginOutcome(candidate: $0, status: .notRun) }, problem: nil, bootstrapped: Bootstrapped())
        let clock = ContinuousClock()

        var components: [any Bootstrapping] = []
        for (index, candidate) in order.enumerated() {
            let start = clock.now
            do {
                components.append(try PluginLoader.component(of: candidate))
                outcome.plugins[index].loadDuration = clock.now - start
            } catch {
                outcome.plugins[index].loadDuration = clock.now - start
                outcome.plugins[index].status = .failed
                outcome.problem = error
                return outcome
            }
        }

        for (index, component) in components.enumerated() {
            let candidate = order[index]
            let start = clock.now
            do {
                outcome.bootstrapped = try outcome.bootstrapped.bootstrap(
                    component, as: candidate.manifest.identity,
                    settings: settings[candidate.name] ?? Settings(for: candidate.name))
                outcome.plugins[index].bootstrapDuration = clock.now - start
                outcome.plugins[index].status = .bootstrapped
            } catch {
                outcome.plugins[index].bootstrapDuration = clock.now - start
                outcome.plugins[index].status = .failed
                let notRun = order[(index + 1)...].map(\.name)
                outcome.problem = Problem(
                    .bootstrapFailed, plugin: candidate.name, file: candidate.file,
                    "plugin \(candidate.label) failed to bootstrap: \(error)"
                        + (notRun.isEmpty ? "" : "; not run: \(notRun.joined(separator: ", "))"))
                return outcome
            }
        }
        return outcome
    }
}
