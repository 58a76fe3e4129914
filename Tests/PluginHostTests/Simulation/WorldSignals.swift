#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The signals operators send, as the world knows them: each send and its copies (a signal to
/// the whole service reaches the supervisor and the serving worker), the copies a stopped
/// worker holds until it is resumed, and the stop requests they make. A stop signal is a
/// request once, whichever copy comes first; once the host stops, a copy a worker passes on is
/// the same stop.
struct WorldSignals {
    /// The stop requests operators made: the signal, and when it reached the host.
    private(set) var stopRequests: [(signal: Signal, at: MonotonicInstant)] = []
    /// Signals sent so far, and those of the stop requests that reached the host.
    private var sends = 0
    private var stopSends: Set<Int> = []
    /// The copies of signals each stopped worker passes on once resumed, with the send each is of.
    private var held: [Int: [(signal: Signal, send: Int)]] = [:]

    /// Whether an operator asked the host to stop.
    var stopAsked: Bool { !stopRequests.isEmpty }

    /// An operator sends a signal.
    ///
    /// - Returns: The number of the send, which each of its copies carries.
    mutating func send() -> Int {
        sends += 1
        return sends
    }

    /// A copy of `signal`, of send `send`, reaches the host at `now`, from a worker that passes
    /// it on or not: a stop signal asks for a stop once, and one only a worker got only while
    /// none was asked.
    mutating func copyArrives(of signal: Signal, send: Int, fromWorker: Bool, at now: MonotonicInstant) {
        guard signal.asksToStop, !(fromWorker && stopAsked), stopSends.insert(send).inserted else { return }
        stopRequests.append((signal, now))
    }

    /// An operator asks the host to stop through its control socket at `now`.
    mutating func stopAskedByClient(at now: MonotonicInstant) {
        if !stopAsked { stopRequests.append((.terminate, now)) }
    }

    /// Worker `number` is stopped by a signal: it holds the copy of `signal` it got until it is resumed.
    mutating func hold(_ signal: Signal, send: Int, in number: Int) {
        held[number, default: []].append((signal, send))
    }

    /// Worker `number` is resumed: the copies it held, in order.
    mutating func release(in number: Int) -> [(signal: Signal, send: Int)] {
        held.removeValue(forKey: number) ?? []
    }
}
