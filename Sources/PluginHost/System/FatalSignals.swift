#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// Reports a fatal signal (a crash) with one line on standard error and ends the process
/// with a chosen status instead of dying by the signal.
///
/// The handler runs on an alternate stack, so that a stack overflow is reported too, and
/// does nothing but `write(2)` bytes prepared beforehand and `_exit(2)`: after a crash the
/// heap and the Swift runtime cannot be trusted. The line is
/// `SUBJECT crashed during PHASE: SIGNAL`, where subject and phase are set with
/// ``describe(subject:phase:)`` before risky code runs.
enum FatalSignals {
    /// The signals that mean the process crashed.
    static let handled: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS]

    private static let alternateStackSize = 256 * 1024

    /// Installs the handlers. Call once, early.
    ///
    /// - Parameter status: The exit status after a crash.
    static func install(exitStatus status: Int32) {
        report.exitStatus = status
        describe(subject: "plugin-host", phase: "start-up")
        var stack = stack_t()
        stack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: alternateStackSize, alignment: 16)
        stack.ss_size = alternateStackSize
        stack.ss_flags = 0
        _ = sigaltstack(&stack, nil)
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = fatalSignalHandler
        action.sa_flags = SA_SIGINFO | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        for signal in handled { _ = sigaction(signal, &action, nil) }
        atexit(exitHandler)
    }

    /// Sets what a crash report names from now on.
    ///
    /// - Parameters:
    ///   - subject: Who is running, such as `plugin Domain (plugins/libDomain.so)`.
    ///   - phase: What it is doing, such as `bootstrap`.
    ///   - isPluginCode: Whether a call to `exit()` now comes from a plugin.
    static func describe(subject: String, phase: String, isPluginCode: Bool = false) {
        report.pluginCodeRunning = false
        report.subject.store(subject)
        report.phase.store(phase)
        report.pluginCodeRunning = isPluginCode
    }

    /// The name of a signal, such as `SIGSEGV`.
    static func name(of signal: Int32) -> StaticString {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGFPE: "SIGFPE"
        case SIGABRT: "SIGABRT"
        case SIGSYS: "SIGSYS"
        default: "a fatal signal"
        }
    }
}

/// What the handlers write: fixed buffers, filled before plugin code runs.
private struct CrashReport {
    var subject = FixedText()
    var phase = FixedText()
    var pluginCodeRunning = false
    var exitStatus: Int32 = 70
}

/// Text in a buffer allocated once, readable from a signal handler.
private struct FixedText {
    static let capacity = 4096
    let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    var count = 0

    mutating func store(_ text: String) {
        count = 0
        for byte in text.utf8.prefix(Self.capacity) {
            bytes[count] = byte
            count += 1
        }
    }

    func emit(to descriptor: Int32) {
        _ = write(descriptor, bytes, count)
    }
}

/// Written only by the thread that runs plugin code, before it runs it; read by the
/// handlers, which run on that same thread (a crash signal is delivered to the thread
/// that caused it).
nonisolated(unsafe) private var report = CrashReport()

private func writeStatic(_ text: StaticString) {
    _ = write(STDERR_FILENO, text.utf8Start, text.utf8CodeUnitCount)
}

private func fatalSignalHandler(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    report.subject.emit(to: STDERR_FILENO)
    writeStatic(" crashed during ")
    report.phase.emit(to: STDERR_FILENO)
    writeStatic(": ")
    writeStatic(FatalSignals.name(of: signal))
    writeStatic("\n")
    _exit(report.exitStatus)
}

private func exitHandler() {
    guard report.pluginCodeRunning else { return }
    report.subject.emit(to: STDERR_FILENO)
    writeStatic(" called exit() during ")
    report.phase.emit(to: STDERR_FILENO)
    writeStatic("; a plugin must throw an error instead of ending the process\n")
    _exit(report.exitStatus)
}
