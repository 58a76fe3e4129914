#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

import Synchronization

/// The worker's handler for fatal signals (crashes): it records in the supervision page
/// which plugin crashed, and how that is known, then ends the worker with a chosen status.
/// The supervisor prints the report; the handler writes nothing and takes no lock.
///
/// The culprit is, in this order: the plugin whose code holds the faulting instruction; the
/// innermost plugin whose code is on the crashing thread's stack (a Swift runtime trap or
/// `abort()` called from a plugin); the plugin whose code the thread was running, when it is
/// one of the host's plugin threads. The handler runs on an alternate stack on the host's
/// threads, so a stack overflow there is reported too.
enum FatalSignals {
    /// The signals that mean the process crashed.
    static let handled: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS]

    /// What gave the culprit away, as recorded.
    enum Evidence: Int32 {
        case none = 0
        case faultingCode = 1
        case stack = 2
        case runningThread = 3
    }

    /// Which kind of thread crashed or called `exit`, as recorded.
    enum ThreadKind: Int32 {
        case notTheHosts = 0
        case hostCode = 1
        case pluginCode = 2
    }

    private static let alternateStackSize = 256 * 1024

    /// Installs the handlers. Call once in the worker, before any plugin code runs.
    ///
    /// - Parameters:
    ///   - page: Where to record a crash.
    ///   - status: The worker's exit status after a crash.
    static func install(recordingIn page: SupervisionPage, exitStatus status: Int32) {
        crashPage = page
        crashExitStatus = status
        scanBuffer = UnsafeMutableRawPointer.allocate(byteCount: scanLimit, alignment: 8)
        installAlternateStack()
        for signal in handled { _ = sigaction(signal, &handlerAction, nil) }
    }

    /// Installs the handlers again where plugin code replaced them.
    ///
    /// - Returns: The signals whose handler a plugin had replaced.
    @discardableResult
    static func reassert() -> [Int32] {
        handled.filter { signal in
            var current = sigaction()
            _ = sigaction(signal, nil, &current)
            let installed = unsafeBitCast(current.__sigaction_handler.sa_sigaction, to: UnsafeRawPointer?.self)
            guard installed != unsafeBitCast(handlerAction.__sigaction_handler.sa_sigaction, to: UnsafeRawPointer?.self) else {
                return false
            }
            _ = sigaction(signal, &handlerAction, nil)
            return true
        }
    }

    /// Gives the calling thread an alternate signal stack, so that the handler runs even
    /// when the thread's own stack overflowed.
    static func installAlternateStack() {
        var stack = stack_t()
        stack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: alternateStackSize, alignment: 16)
        stack.ss_size = alternateStackSize
        stack.ss_flags = 0
        _ = sigaltstack(&stack, nil)
    }

    /// The name of a signal, such as `SIGSEGV`.
    static func name(of signal: Int32) -> String {
        switch signal {
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
        default: "signal \(signal)"
        }
    }

    /// Finds who is to blame for what the calling thread is doing now (crashing, or
    /// calling `exit`), from its stack and its slot. Async-signal-safe.
    ///
    /// - Parameter stackPointer: Where to start reading the thread's stack.
    static func blame(stackFrom stackPointer: UInt64, faultingCode: UInt64?, in page: SupervisionPage) -> SupervisionPage.Record {
        var record = SupervisionPage.Record()
        let slot = page.slotOfCurrentThread()
        let running = slot.map { page.slot($0) }
        record.thread = (running.map { $0.plugin >= 0 ? ThreadKind.pluginCode : .hostCode } ?? .notTheHosts).rawValue
        if let faultingCode, case let owner = page.plugin(containingCode: faultingCode), owner >= 0 {
            record.culprit = owner
            record.evidence = Evidence.faultingCode.rawValue
        } else if case let owner = innermostPlugin(onStackFrom: stackPointer, in: page), owner >= 0 {
            record.culprit = owner
            record.evidence = Evidence.stack.rawValue
        } else if let running, running.plugin >= 0 {
            record.culprit = running.plugin
            record.evidence = Evidence.runningThread.rawValue
        }
        if let running, running.plugin == record.culprit {
            record.phase = running.phase
        } else if record.culprit >= 0, page.step(of: Int(record.culprit)) != nil {
            record.phase = page.lastPhase(of: Int(record.culprit))
        }
        return record
    }

    /// The bytes of the stack read at most: the innermost frames, where a plugin that
    /// called into the runtime or the C library is found.
    private static let scanLimit = 64 * 1024

    /// The plugin whose code a word on the stack, read upwards from `stackPointer`, points
    /// into first; -1 when none does. The stack is copied with `process_vm_readv`, which
    /// stops at the first unreadable page instead of faulting.
    private static func innermostPlugin(onStackFrom stackPointer: UInt64, in page: SupervisionPage) -> Int32 {
        guard let readMemory, let scanBuffer, stackPointer != 0 else { return -1 }
        var local = iovec(iov_base: scanBuffer, iov_len: scanLimit)
        var remote = iovec(iov_base: UnsafeMutableRawPointer(bitPattern: UInt(stackPointer)), iov_len: scanLimit)
        let read = readMemory(getpid(), &local, 1, &remote, 1, 0)
        guard read > 0 else { return -1 }
        let (lower, upper) = page.codeBounds()
        let words = scanBuffer.assumingMemoryBound(to: UInt64.self)
        for index in 0..<(read / 8) {
            let word = words[index]
            guard word >= lower, word < upper else { continue }
            let owner = page.plugin(containingCode: word)
            if owner >= 0 { return owner }
        }
        return -1
    }

    private typealias ReadProcessMemory = @convention(c) (
        pid_t, UnsafePointer<iovec>?, UInt, UnsafePointer<iovec>?, UInt, UInt
    ) -> Int

    /// `process_vm_readv`, a GNU extension the C module leaves out.
    private static let readMemory: ReadProcessMemory? = {
        guard let symbol = dlsym(nil, "process_vm_readv") else { return nil }
        return unsafeBitCast(symbol, to: ReadProcessMemory.self)
    }()

    /// Where stack words are copied to be read; allocated by ``install(recordingIn:exitStatus:)``.
    nonisolated(unsafe) fileprivate static var scanBuffer: UnsafeMutableRawPointer?

    nonisolated(unsafe) fileprivate static var handlerAction: sigaction = {
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = fatalSignalHandler
        action.sa_flags = SA_SIGINFO | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        return action
    }()
}

nonisolated(unsafe) private var crashPage: SupervisionPage?
nonisolated(unsafe) private var crashExitStatus: Int32 = 70
/// Set by the first crashing thread; a second one waits for it to end the process.
private let crashing = Atomic(false)

/// The program counter and stack pointer of the code a signal interrupted, from the
/// context its handler receives.
func interruptedRegisters(_ context: UnsafeMutableRawPointer?) -> (code: UInt64, stack: UInt64) {
    guard let context = context?.assumingMemoryBound(to: ucontext_t.self) else { return (0, 0) }
    #if arch(x86_64)
    return withUnsafeBytes(of: context.pointee.uc_mcontext.gregs) { registers in
        let words = registers.bindMemory(to: Int64.self)
        return (UInt64(bitPattern: words[16] /* REG_RIP */), UInt64(bitPattern: words[15] /* REG_RSP */))
    }
    #elseif arch(arm64)
    return (context.pointee.uc_mcontext.pc, context.pointee.uc_mcontext.sp)
    #else
    return (0, 0)
    #endif
}

private func fatalSignalHandler(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    guard crashing.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else {
        while true { pause() }
    }
    if let page = crashPage {
        let (code, stack) = interruptedRegisters(context)
        var record = FatalSignals.blame(stackFrom: stack, faultingCode: code, in: page)
        record.signal = signal
        record.address = code
        page.crash = record
    }
    _exit(crashExitStatus)
}
