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
    /// The notification socket's address, as systemd gave it.
    var address: String?

    /// Reads and removes the variables: call it once, in the process systemd started,
    /// before any plugin code runs.
    static func fromEnvironment(process: ProcessID) -> SystemdService {
        let address = Process.environment("NOTIFY_SOCKET")
        let socket = address.flatMap { NotifySocket(address: $0) }
        var watchdog: Duration?
        if let text = Process.environment("WATCHDOG_USEC"), let microseconds = Int64(text), microseconds > 0,
            Process.environment("WATCHDOG_PID").map({ Int32($0) == process.rawValue }) ?? true {
            watchdog = .microseconds(microseconds)
        }
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { Process.removeEnvironment(name) }
        return SystemdService(socket: socket, watchdog: socket == nil ? nil : watchdog, address: socket == nil ? nil : address)
    }

    /// What the host before of a host upgrade read from its environment: its notification
    /// socket and watchdog.
    static func handedOver(address: String?, watchdogMicroseconds: Int64?) -> SystemdService {
        let socket = address.flatMap { NotifySocket(address: $0) }
        return SystemdService(socket: socket, watchdog: socket == nil ? nil : watchdogMicroseconds.map { .microseconds($0) }, address: socket == nil ? nil : address)
    }

    /// Sends `notice` when run by systemd.
    func notify(_ notice: HostNotice) {
        socket?.send(notice.datagram(of: ProcessControl.current))
    }

    /// Pings the watchdog when run by systemd.
    func pingWatchdog() {
        socket?.send("WATCHDOG=1")
    }
}
