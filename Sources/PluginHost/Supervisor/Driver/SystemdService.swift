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
    /// How long systemd's watchdog waits between pings; `nil` without one.
    let watchdog: Duration?

    /// Reads and removes the variables: call it once, in the process systemd started,
    /// before any plugin code runs.
    static func fromEnvironment(process: ProcessID) -> SystemdService {
        let socket = Process.environment("NOTIFY_SOCKET").flatMap { NotifySocket(address: $0) }
        var watchdog: Duration?
        if let text = Process.environment("WATCHDOG_USEC"), let microseconds = Int64(text), microseconds > 0,
            Process.environment("WATCHDOG_PID").map({ Int32($0) == process.rawValue }) ?? true {
            watchdog = .microseconds(microseconds)
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
