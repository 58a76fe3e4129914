/// What the host tells systemd about its state (`sd_notify`'s protocol).
enum ServiceNotification: Equatable, Sendable {
    /// Every component is ready; `STATUS=` says what runs.
    case ready(status: String)
    /// The host begins to reload, or to replace its worker (`RELOADING=1`), at this
    /// instant of `CLOCK_MONOTONIC`, in microseconds; `READY=1` follows when it is done.
    case reloading(monotonicMicroseconds: Int64)

    /// `RELOADING=1` at `instant`.
    static func reloading(at instant: MonotonicInstant) -> ServiceNotification {
        .reloading(monotonicMicroseconds: instant.nanoseconds / 1000)
    }
    /// What the host is doing now.
    case status(String)
    /// The host begins to stop (`STOPPING=1`).
    case stopping(status: String)

    /// Whether only systemd needs it: the supervisor itself acts on ``ready(status:)`` alone.
    var isForSystemdOnly: Bool {
        if case .ready = self { false } else { true }
    }

    /// The datagram sent.
    var datagram: String {
        switch self {
        case .ready(let status): "READY=1\nSTATUS=\(status)"
        case .reloading(let microseconds): "RELOADING=1\nMONOTONIC_USEC=\(microseconds)"
        case .status(let status): "STATUS=\(status)"
        case .stopping(let status): "STOPPING=1\nSTATUS=\(status)"
        }
    }
}
