import Synchronization

/// What the host reacts to once it runs: signals, and services that end.
enum HostEvent: Sendable {
    /// SIGINT or SIGTERM: stop.
    case stop(signal: Int32)
    /// SIGHUP: reload the configuration.
    case reload
    /// A service's `run()` returned, or threw.
    case serviceEnded(name: String, error: String?)
}

/// Turns termination signals into ``HostEvent``s: the first SIGINT or SIGTERM asks the
/// host to stop, a second one ends it at once with status 128 + the signal's number.
final class HostEvents: Sendable {
    /// The events, in the order they happened.
    let stream: AsyncStream<HostEvent>
    private let continuation: AsyncStream<HostEvent>.Continuation
    private let stopSignal = Mutex<Int32?>(nil)

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: HostEvent.self)
    }

    /// Whether the host has been asked to stop.
    var stopRequested: Bool { stopSignal.withLock { $0 != nil } }

    /// Starts listening for signals.
    func listen() {
        TerminationSignals.listen { [self] signal in received(signal) }
    }

    /// Records that a service ended.
    func serviceEnded(_ name: String, error: String?) {
        continuation.yield(.serviceEnded(name: name, error: error))
    }

    private func received(_ signal: Int32) {
        let name = TerminationSignals.name(of: signal)
        guard signal != TerminationSignals.hangUp else {
            continuation.yield(.reload)
            return
        }
        let first = stopSignal.withLock { current -> Bool in
            guard current == nil else { return false }
            current = signal
            return true
        }
        if first {
            StandardStreams.writeToError("plugin-host: received \(name); shutting down (send it again to exit at once)\n")
            continuation.yield(.stop(signal: signal))
        } else {
            StandardStreams.writeToError("plugin-host: received \(name) again; exiting at once without finishing the shutdown\n")
            exitImmediately(128 + signal)
        }
    }
}
