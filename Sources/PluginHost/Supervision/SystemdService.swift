/// What systemd asked of the host through its environment, when it runs the host as a
/// `Type=notify` service: where to send notifications (`NOTIFY_SOCKET`) and how often to
/// tell its watchdog the host is alive (`WATCHDOG_USEC`, `WATCHDOG_PID`).
///
/// The supervisor, which systemd knows as the service's main process, sends every
/// message: plugins never see these variables, so that no plugin can say the host is
/// ready, or alive, when it is not.
struct SystemdService: Sendable {
    /// The notification socket; `nil` when not run by systemd.
    let socket: NotifySocket?
    /// How long systemd's watchdog waits between pings (nanoseconds); `nil` without one.
    let watchdog: Int64?

    /// Reads and removes the variables: call it once, in the process systemd started,
    /// before any plugin code runs.
    static func fromEnvironment(process: Int32) -> SystemdService {
        let socket = Process.environment("NOTIFY_SOCKET").flatMap { NotifySocket(address: $0) }
        var watchdog: Int64?
        if let text = Process.environment("WATCHDOG_USEC"), let microseconds = Int64(text), microseconds > 0,
            Process.environment("WATCHDOG_PID").map({ Int32($0) == process }) ?? true {
            watchdog = microseconds * 1000
        }
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { Process.removeEnvironment(name) }
        return SystemdService(socket: socket, watchdog: socket == nil ? nil : watchdog)
    }

    /// Sends `notification` when run by systemd.
    func notify(_ notification: ServiceNotification) {
        socket?.send(notification.datagram)
    }

    /// Pings the watchdog when run by systemd.
    func pingWatchdog() {
        socket?.send("WATCHDOG=1")
    }
}

/// What the host tells systemd about its state (`sd_notify`'s protocol).
enum ServiceNotification: Equatable, Sendable {
    /// Every component is ready; `STATUS=` says what runs.
    case ready(status: String)
    /// The host begins to reload, or to replace its worker (`RELOADING=1`), at this
    /// ``MonotonicClock`` time; `READY=1` follows when it is done.
    case reloading(monotonicMicroseconds: Int64)
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
