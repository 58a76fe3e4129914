/// What the machine tells systemd of its own accord, beside what the generation that speaks
/// for the host tells: that the host is alive, every half of the watchdog's interval
/// (`WatchdogSec=`), and that it stops, once.
struct SystemdNotices: Equatable, Sendable {
    /// When the watchdog is told next; `nil` without one.
    private(set) var nextPing: MonotonicInstant?
    /// Whether systemd was told the host stops.
    private var toldStopping = false

    /// The notices of a host that starts at `now`, whose watchdog waits `watchdog` between
    /// pings (`nil` without one): the first ping is due at once.
    init(watchdog: Duration?, startingAt now: MonotonicInstant) {
        nextPing = watchdog.map { _ in now }
    }

    /// Whether the watchdog's ping is due at `now`; the next is then due after half its
    /// `interval`.
    mutating func pingIfDue(at now: MonotonicInstant, interval: Duration?) -> Bool {
        guard let ping = nextPing, now >= ping, let interval else { return false }
        nextPing = now + interval / 2
        return true
    }

    /// Whether systemd is to be told the host stops: the first time only.
    mutating func tellStopping() -> Bool {
        defer { toldStopping = true }
        return !toldStopping
    }
}
