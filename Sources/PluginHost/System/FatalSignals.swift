#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

import Synchronization

/// Reports a fatal signal (a crash) with one line on standard error and ends the process
/// with a chosen status instead of dying by the signal.
///
/// The handler runs on an alternate stack, so that a stack overflow is reported too, and
/// does nothing but `write(2)` bytes prepared beforehand and `_exit(2)`: after a crash the
/// heap and the Swift runtime cannot be trusted. The line is
/// `SUBJECT crashed during PHASE: SIGNAL`. Each thread that runs plugin code has a slot of
/// its own (``registerCurrentThread()``), so that concurrent plugins are told apart; a
/// crash on any other thread uses slot 0.
enum FatalSignals {
    /// The signals that mean the process crashed.
    static let handled: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS]
    /// The number of slots: slot 0 and one per plugin thread.
    static let slotCount = 130

    private static let alternateStackSize = 256 * 1024
    private static let registration = Mutex(1)

    /// Installs the handlers. Call once, early.
    ///
    /// - Parameter status: The exit status after a crash.
    static func install(exitStatus status: Int32) {
        crashExitStatus = status
        slots[0] = CrashSlot(allocating: true)
        describe(slot: 0, subject: "plugin-host", phase: "start-up")
        installAlternateStack()
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = fatalSignalHandler
        action.sa_flags = SA_SIGINFO | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        for signal in handled { _ = sigaction(signal, &action, nil) }
        atexit(exitHandler)
    }

    /// Gives the calling thread a slot of its own and an alternate signal stack.
    ///
    /// - Returns: The slot, or 0 when all are taken.
    static func registerCurrentThread() -> Int {
        installAlternateStack()
        let slot = registration.withLock { next -> Int in
            guard next < slotCount else { return 0 }
            defer { next += 1 }
            return next
        }
        if slot > 0 {
            slots[slot] = CrashSlot(allocating: true)
            slots[slot].thread = pthread_self()
        }
        return slot
    }

    /// Sets what a crash on the thread of `slot` reports from now on.
    ///
    /// - Parameters:
    ///   - slot: The slot of the thread that will run the code.
    ///   - subject: Who is running, such as `plugin Domain (plugins/libDomain.so)`.
    ///   - phase: What it is doing, such as `bootstrap`.
    ///   - isPluginCode: Whether a call to `exit()` now comes from a plugin.
    static func describe(slot: Int, subject: String, phase: String, isPluginCode: Bool = false) {
        slots[slot].pluginCodeRunning = false
        slots[slot].subject.store(subject)
        slots[slot].phase.store(phase)
        slots[slot].pluginCodeRunning = isPluginCode
    }

    /// Sets what a crash on the calling thread reports from now on; see
    /// ``describe(slot:subject:phase:isPluginCode:)``.
    static func describeCurrentThread(subject: String, phase: String, isPluginCode: Bool = false) {
        describe(slot: currentSlot(), subject: subject, phase: phase, isPluginCode: isPluginCode)
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

    private static func installAlternateStack() {
        var stack = stack_t()
        stack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: alternateStackSize, alignment: 16)
        stack.ss_size = alternateStackSize
        stack.ss_flags = 0
        _ = sigaltstack(&stack, nil)
    }
}

/// What the handlers write for one thread: fixed buffers, filled before plugin code runs,
/// allocated when the thread registers.
private struct CrashSlot {
    var thread: pthread_t = 0
    var subject: FixedText
    var phase: FixedText
    var pluginCodeRunning = false

    init(allocating: Bool = false) {
        subject = FixedText(capacity: allocating ? FixedText.capacity : 0)
        phase = FixedText(capacity: allocating ? FixedText.capacity : 0)
    }
}

/// Text in a buffer allocated once, readable from a signal handler.
private struct FixedText {
    static let capacity = 2048
    let bytes: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity, 1))
    }

    mutating func store(_ text: String) {
        var text = text
        let capacity = capacity
        count = text.withUTF8 { utf8 in
            let count = min(utf8.count, capacity)
            if count > 0 { bytes.update(from: utf8.baseAddress!, count: count) }
            return count
        }
    }

    func emit(to descriptor: Int32) {
        _ = write(descriptor, bytes, count)
    }
}

/// Written by the thread a slot belongs to before it runs plugin code (slot 0: by whichever
/// thread runs plugin code outside the registered ones, one at a time); read by the
/// handlers, which run on the thread that crashed or called `exit()`.
///
/// Plain memory, allocated once and never freed: an access costs no exclusivity check and
/// no reference count, which a global array's does (in the handler, and in the scan of
/// ``currentSlot()`` before every plugin is loaded, once per slot).
nonisolated(unsafe) private let slots: UnsafeMutablePointer<CrashSlot> = {
    let slots = UnsafeMutablePointer<CrashSlot>.allocate(capacity: FatalSignals.slotCount)
    slots.initialize(repeating: CrashSlot(), count: FatalSignals.slotCount)
    return slots
}()
nonisolated(unsafe) private var crashExitStatus: Int32 = 70

/// The slot of the calling thread; async-signal-safe (no allocation, no lock).
private func currentSlot() -> Int {
    let (me, slots) = (pthread_self(), slots)
    for index in 1..<FatalSignals.slotCount where slots[index].thread == me { return index }
    return 0
}

private func writeStatic(_ text: StaticString) {
    _ = write(STDERR_FILENO, text.utf8Start, text.utf8CodeUnitCount)
}

private func fatalSignalHandler(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    let slot = currentSlot()
    slots[slot].subject.emit(to: STDERR_FILENO)
    writeStatic(" crashed during ")
    slots[slot].phase.emit(to: STDERR_FILENO)
    writeStatic(": ")
    writeStatic(FatalSignals.name(of: signal))
    writeStatic("\n")
    _exit(crashExitStatus)
}

private func exitHandler() {
    let slot = currentSlot()
    guard slots[slot].pluginCodeRunning else { return }
    slots[slot].subject.emit(to: STDERR_FILENO)
    writeStatic(" called exit() during ")
    slots[slot].phase.emit(to: STDERR_FILENO)
    writeStatic("; a plugin must throw an error instead of ending the process\n")
    _exit(crashExitStatus)
}
