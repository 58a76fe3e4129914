#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// The signals the host handles, by what they mean to it.
enum Signals {
    static let interrupt = SIGINT
    static let terminate = SIGTERM
    static let hangUp = SIGHUP
    static let childEnded = SIGCHLD
    static let resume = SIGCONT
    static let kill = SIGKILL
    /// The signal with which the worker wakes the supervisor.
    static let wake = SIGUSR1
    /// The signal with which the supervisor asks a stuck worker's driving thread what it runs.
    static let probe = SIGSTKFLT
}

/// Asks the worker's driving thread, which runs only host code, whose code holds it up: its
/// handler records who is to blame for what that thread does, as a crash handler would,
/// and returns.
enum ProbeSignal {
    /// Installs the handler in the worker.
    static func install(recordingIn page: SupervisionPage) {
        probePage = page
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { _, _, context in
            guard let page = probePage else { return }
            let (code, stack) = interruptedRegisters(context)
            page.stall = FatalSignals.blame(stackFrom: stack, faultingCode: code, in: page)
        }
        action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        _ = sigaction(Signals.probe, &action, nil)
    }

    /// Signals the driving thread of `worker` and waits briefly for its answer.
    ///
    /// - Returns: What the thread was found running, or `nil` when it did not answer.
    static func ask(worker: Int32, page: SupervisionPage) -> SupervisionPage.Record? {
        guard let threadKill, case let thread = page.driverThread.load(), thread > 0 else { return nil }
        _ = threadKill(worker, thread, Signals.probe)
        let deadline = MonotonicClock.now + 200_000_000
        while MonotonicClock.now < deadline {
            if let stall = page.stall { return stall }
            ProcessControl.sleep(nanoseconds: 5_000_000)
        }
        return nil
    }

    private typealias ThreadKill = @convention(c) (pid_t, pid_t, Int32) -> Int32

    /// `tgkill`, which the C module leaves out.
    private static let threadKill: ThreadKill? = {
        guard let symbol = dlsym(nil, "tgkill") else { return nil }
        return unsafeBitCast(symbol, to: ThreadKill.self)
    }()
}

nonisolated(unsafe) private var probePage: SupervisionPage?
