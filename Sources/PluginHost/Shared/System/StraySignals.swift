#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// Signals whose default action would end the worker though nothing crashed: a write to a
/// closed pipe (SIGPIPE), an `alarm()` or profiling timer nobody handles, a stray SIGUSR1;
/// and SIGINT, SIGTERM and SIGHUP sent to the worker itself rather than to the host.
///
/// The first kind get a handler that does nothing, with `SA_RESTART`: a write to a closed
/// pipe returns `EPIPE` instead of ending the process. SIGINT, SIGTERM and SIGHUP are handed
/// to a forwarder, which passes them to the supervisor. A handler, unlike `SIG_IGN`, is
/// reset by `exec`, so programs a plugin starts get the default actions. A plugin may
/// install its own handler for any of them.
enum StraySignals {
    static let forwarded: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    static let ignored: [Int32] = [SIGPIPE, SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2, SIGIO, SIGXFSZ]
    static var caught: [Int32] { forwarded + ignored }

    /// Called in the handler with SIGINT, SIGTERM or SIGHUP. Must be async-signal-safe;
    /// `errno` is saved around it.
    typealias Forwarder = @convention(c) (_ signal: Int32) -> Void

    /// Installs the handlers. Call once in the worker, before any plugin code runs.
    static func install(forwarder: Forwarder) {
        signalForwarder = forwarder
        for signal in ignored { _ = sigaction(signal, &ignoringAction, nil) }
        for signal in forwarded { _ = sigaction(signal, &forwardingAction, nil) }
    }

    /// Installs the handler again for each signal that plugin code set back to its
    /// default action.
    ///
    /// - Returns: Those signals.
    @discardableResult
    static func reassert() -> [Signal] {
        caught.filter { signal in
            var current = sigaction()
            _ = sigaction(signal, nil, &current)
            guard unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == 0 /* SIG_DFL */ else { return false }
            var action = forwarded.contains(signal) ? forwardingAction : ignoringAction
            _ = sigaction(signal, &action, nil)
            return true
        }.map(Signal.init(rawValue:))
    }

    nonisolated(unsafe) private static var forwardingAction: sigaction = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            let saved = errno
            signalForwarder?(signal)
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        return action
    }()

    nonisolated(unsafe) private static var ignoringAction: sigaction = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        return action
    }()
}

nonisolated(unsafe) private var signalForwarder: StraySignals.Forwarder?
