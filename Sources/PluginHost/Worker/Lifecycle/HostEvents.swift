import Synchronization

/// What the host reacts to once it runs, in the order it happened: the supervisor's
/// requests and services that end. Posted from any thread; taken by the worker's driving thread.
final class HostEvents: Sendable {
    enum Event: Sendable, Equatable {
        /// SIGINT or SIGTERM: stop.
        case stop(signal: Signal)
        /// SIGHUP: reload the configuration, then rescan the plugin directories.
        case reload
        /// A plugin directory changed (`--watch`): rescan it.
        case rescan
        /// A service's `run()` returned, or threw.
        case serviceEnded(plugin: PluginNumber, error: String?)
        /// The supervisor's word to an upgrade's new worker that waits for it.
        case verdict(CandidateVerdict)
        /// The supervisor's word: remove the plugins whose files are gone, in place.
        case removeGone
    }

    private let queue = Mutex<[Event]>([])
    private let posted = Semaphore()
    private let source: Mutex<(@Sendable (HostEvents) -> Void)?>

    /// - Parameter source: Starts what posts the supervisor's requests. It is called once,
    ///   when an event is first awaited, so that a run that never waits for one (no service,
    ///   no `--watch`) starts nothing for them.
    init(source: @escaping @Sendable (HostEvents) -> Void = { _ in }) {
        self.source = Mutex(source)
    }

    func post(_ event: Event) {
        queue.withLock { $0.append(event) }
        posted.signal()
    }

    /// The next event, waiting for one until `deadline` (`nil`: without limit).
    ///
    /// - Returns: The event, or `nil` when the deadline passed first.
    func next(until deadline: MonotonicInstant? = nil) -> Event? {
        if let start = source.withLock({ source in defer { source = nil }; return source }) { start(self) }
        while true {
            if let event = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return event }
            guard posted.wait(until: deadline) else {
                return queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            }
        }
    }
}
