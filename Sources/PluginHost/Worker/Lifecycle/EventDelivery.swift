import PluginABI
import Synchronization

/// Delivers lifecycle events to the components that registered for them, in the event's
/// order, each call within its deadline on the plugin threads (``PluginCalls``).
struct EventDelivery {
    let threads: PluginThreads

    /// How one component's call ended, and its answer when it finished.
    struct Delivered<Answer: Sendable> {
        let plugin: RunningPlugin
        let outcome: PluginCallOutcome
        let answer: Answer?
        /// How long the call took, when it ended.
        let duration: Duration?
    }

    /// Delivers the event `make` gives for each plugin to those of `plugins` that handle
    /// it, in the event's order, each within `timeout`, and none past `deadline`.
    ///
    /// - Returns: The plugins that handle it, in that order, with how each call ended.
    func deliver<Event: LifecycleEvent>(
        _ event: Event.Type, to plugins: [RunningPlugin], phase: Phase, within timeout: Duration?, until deadline: MonotonicInstant? = nil,
        _ make: (RunningPlugin) -> Event
    ) -> [Delivered<Event.Answer>] {
        let handling = plugins.filter { $0.lifecycle.handles(Event.self) }
        let ordered = Event.order == .dependenciesFirst ? handling : handling.reversed()
        let answers = Answers<Event.Answer>(count: ordered.count)
        let calls = ordered.enumerated().map { position, plugin in
            let event = make(plugin)
            return PluginCall(plugin: plugin.number, phase: phase) {
                if let answer = try await plugin.lifecycle.deliver(event) { answers.set(position, answer) }
            }
        }
        let outcomes = PluginCalls(threads: threads).performTimed(calls, within: timeout, until: deadline)
        return ordered.indices.map { position in
            Delivered(
                plugin: ordered[position], outcome: outcomes[position].outcome,
                answer: outcomes[position].outcome == .finished ? answers.get(position) : nil, duration: outcomes[position].duration)
        }
    }

    /// Delivers an event whose answers do not matter, and returns the problems of the calls
    /// that did not finish, as `hook` words them.
    func call<Event: LifecycleEvent>(
        _ hook: Hook, _ event: Event.Type, to plugins: [RunningPlugin], phase: Phase, within timeout: Duration?,
        until deadline: MonotonicInstant? = nil, _ make: (RunningPlugin) -> Event
    ) -> [Problem] {
        deliver(event, to: plugins, phase: phase, within: timeout, until: deadline, make).compactMap { delivered in
            hook.problem(of: delivered.plugin, delivered.outcome, limit: timeout)
        }
    }
}

/// The answers of one delivery, written by the plugin threads.
private final class Answers<Answer: Sendable>: Sendable {
    private let values: Mutex<[Answer?]>

    init(count: Int) { values = Mutex(Array(repeating: nil, count: count)) }

    func set(_ position: Int, _ answer: Answer) { values.withLock { $0[position] = answer } }
    func get(_ position: Int) -> Answer? { values.withLock { $0[position] } }
}
