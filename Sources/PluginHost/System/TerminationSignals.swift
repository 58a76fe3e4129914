#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// SIGINT, SIGTERM and SIGHUP, taken from their default actions and delivered to one
/// thread that waits for them with `sigwait`.
enum TerminationSignals {
    static let interrupt = SIGINT
    static let terminate = SIGTERM
    static let hangUp = SIGHUP

    private static var set: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, signal) }
        return set
    }

    /// Blocks the signals in the calling thread and every thread it creates afterwards.
    /// Call first thing in `main`, before any other thread exists.
    static func block() {
        var signals = set
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Starts a thread that calls `handler` with each signal as it arrives.
    static func listen(_ handler: @escaping @Sendable (Int32) -> Void) {
        startDetachedThread {
            var signals = set
            while true {
                var signal: Int32 = 0
                if sigwait(&signals, &signal) == 0 { handler(signal) }
            }
        }
    }

    /// The name of a signal, such as `SIGTERM`.
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }
}
