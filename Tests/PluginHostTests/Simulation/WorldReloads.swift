#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The reloads as the world knows them, by docs/operations.md ("Reloading"): the requests
/// that wait for a reload (SIGHUP, `plugin-host reload`, any number of them meanwhile one
/// reload), how a SIGHUP's copies are told from two signals, the reload under way, and what
/// the workers told of those made, as the host heard it.
struct WorldReloads {
    /// When each request not yet answered by a reload that began after it was made.
    var asked: [MonotonicInstant] = []
    /// Whether each SIGHUP delivered and not yet handled is a request of its own, in order.
    var hangUpsCounting: [Bool] = []
    /// When the last SIGHUP that was a request came, and through whom, to tell a signal's two
    /// copies apart from two signals.
    var lastHangUp: (fromWorker: Bool, at: MonotonicInstant)?
    /// The generation a reload is under way on.
    var underWay: Int?
    /// How many reloads were made.
    private(set) var made = 0
    /// The reloads the host heard the workers tell the outcome of: how many applied, how many
    /// refused, and the last.
    private(set) var applied = 0
    private(set) var refused = 0
    private(set) var last: (at: MonotonicInstant, applied: Bool, reasons: [String])?

    /// A reload is asked of generation `number`: every request waiting is answered by it.
    mutating func begin(on number: Int) {
        asked = []
        underWay = number
        made += 1
    }

    /// The host hears, at `now`, a worker tell a reload's outcome.
    mutating func told(applied isApplied: Bool, reasons: [String], at now: MonotonicInstant) {
        if isApplied { applied += 1 } else { refused += 1 }
        last = (now, isApplied, reasons)
    }
}
