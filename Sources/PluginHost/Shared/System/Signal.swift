#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// A signal, named by what it means to the host (`Signal.terminate`), and as operators
/// read it (`SIGTERM`).
struct Signal: Hashable, Sendable, CustomStringConvertible {
    let rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    static let interrupt = Signal(rawValue: SIGINT)
    static let terminate = Signal(rawValue: SIGTERM)
    static let hangUp = Signal(rawValue: SIGHUP)
    static let childEnded = Signal(rawValue: SIGCHLD)
    static let resume = Signal(rawValue: SIGCONT)
    static let kill = Signal(rawValue: SIGKILL)
    static let stop = Signal(rawValue: SIGSTOP)
    static let segmentationFault = Signal(rawValue: SIGSEGV)
    /// The signal with which the worker wakes the supervisor.
    static let wake = Signal(rawValue: SIGUSR1)
    /// SIGUSR2 to the supervisor: upgrade the host to the plugin-host binary now installed,
    /// as `plugin-host upgrade-host` asks (for unit files: `systemctl kill -s USR2`).
    static let upgradeHost = Signal(rawValue: SIGUSR2)
    /// The signal with which the supervisor asks a stuck worker's driving thread what it runs.
    static let probe = Signal(rawValue: SIGSTKFLT)

    /// Whether it asks the host to stop: SIGINT or SIGTERM.
    var asksToStop: Bool { self == .interrupt || self == .terminate }

    /// `SIGSEGV`; `signal 40` for one without a name.
    var name: String {
        switch rawValue {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGFPE: "SIGFPE"
        case SIGABRT: "SIGABRT"
        case SIGSYS: "SIGSYS"
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        case SIGPIPE: "SIGPIPE"
        case SIGALRM: "SIGALRM"
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        case SIGQUIT: "SIGQUIT"
        case SIGXCPU: "SIGXCPU"
        case SIGXFSZ: "SIGXFSZ"
        case SIGVTALRM: "SIGVTALRM"
        case SIGPROF: "SIGPROF"
        case SIGSTKFLT: "SIGSTKFLT"
        case SIGPWR: "SIGPWR"
        case SIGIO: "SIGIO"
        case SIGSTOP: "SIGSTOP"
        case SIGCONT: "SIGCONT"
        case SIGTSTP: "SIGTSTP"
        case SIGTTIN: "SIGTTIN"
        case SIGTTOU: "SIGTTOU"
        case SIGCHLD: "SIGCHLD"
        default: "signal \(rawValue)"
        }
    }

    var description: String { name }
}
