#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// The handler of ``Signal/probe``, with which the supervisor asks the worker's driving
/// thread, which runs only host code, whose code holds it up: it hands the interrupted
/// code's address and stack pointer to a recorder, and returns.
enum ProbeSignal {
    /// Called in the handler with the address of the interrupted instruction and the stack
    /// pointer. Must be async-signal-safe.
    typealias Recorder = @convention(c) (_ code: UInt64, _ stack: UInt64) -> Void

    /// Installs the handler in the worker.
    static func install(recorder: Recorder) {
        probeRecorder = recorder
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { _, _, context in
            let (code, stack) = interruptedRegisters(context)
            probeRecorder?(code, stack)
        }
        action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        _ = sigaction(Signal.probe.rawValue, &action, nil)
    }

    /// Sends the probe to thread `thread` of process `process`; whether it was sent.
    @discardableResult
    static func send(toThread thread: Int32, of process: ProcessID) -> Bool {
        guard let threadKill, thread > 0 else { return false }
        return threadKill(process.rawValue, thread, Signal.probe.rawValue) == 0
    }

    private typealias ThreadKill = @convention(c) (pid_t, pid_t, Int32) -> Int32

    /// `tgkill`, which the C module leaves out.
    private static let threadKill: ThreadKill? = {
        guard let symbol = dlsym(nil, "tgkill") else { return nil }
        return unsafeBitCast(symbol, to: ThreadKill.self)
    }()
}

nonisolated(unsafe) private var probeRecorder: ProbeSignal.Recorder?
