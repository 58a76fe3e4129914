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

    /// Sends `message` when run by systemd.
    func notify(_ message: String) {
        socket?.send(message)
    }
}
