#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

import Synchronization

/// The handler of fatal signals (crashes): it hands the signal, the faulting instruction's
/// address and the stack pointer to a recorder, then ends the process with a chosen status.
/// It writes nothing and takes no lock; the recorder must not either.
///
/// The handler runs on an alternate stack on the threads that have one
/// (``installAlternateStack()``), so a stack overflow there is recorded too. When two
/// threads crash at once, the second waits for the first to end the process.
enum FatalSignals {
    /// The signals that mean the process crashed.
    static let handled: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS]

    /// Called in the handler with the signal, the address of the faulting instruction and
    /// the stack pointer of the code the signal interrupted. Must be async-signal-safe.
    typealias Recorder = @convention(c) (_ signal: Int32, _ code: UInt64, _ stack: UInt64) -> Void

    private static let alternateStackSize = 256 * 1024

    /// Installs the handlers. Call once, before any code that may crash runs.
    ///
    /// - Parameters:
    ///   - recorder: What to call with the crash.
    ///   - status: The exit status after a crash.
    static func install(recorder: Recorder, exitStatus status: Int32) {
        crashRecorder = recorder
        crashExitStatus = status
        installAlternateStack()
        for signal in handled { _ = sigaction(signal, &handlerAction, nil) }
    }

    /// Installs the handlers again where other code replaced them.
    ///
    /// - Returns: The signals whose handler had been replaced.
    @discardableResult
    static func reassert() -> [Signal] {
        handled.filter { signal in
            var current = sigaction()
            _ = sigaction(signal, nil, &current)
            let installed = unsafeBitCast(current.__sigaction_handler.sa_sigaction, to: UnsafeRawPointer?.self)
            guard installed != unsafeBitCast(handlerAction.__sigaction_handler.sa_sigaction, to: UnsafeRawPointer?.self) else {
                return false
            }
            _ = sigaction(signal, &handlerAction, nil)
            return true
        }.map(Signal.init(rawValue:))
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

    nonisolated(unsafe) fileprivate static var handlerAction: sigaction = {
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = fatalSignalHandler
        action.sa_flags = SA_SIGINFO | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        return action
    }()
}

nonisolated(unsafe) private var crashRecorder: FatalSignals.Recorder?
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
    if let crashRecorder {
        let (code, stack) = interruptedRegisters(context)
        crashRecorder(signal, code, stack)
    }
    _exit(crashExitStatus)
}

/// Reads the calling thread's own stack, word by word, without faulting at its end: for the
/// crash and exit handlers, which look for plugin code on it.
enum StackWords {
    /// The bytes read at most: the innermost frames, where a plugin that called into the
    /// runtime or the C library is found.
    private static let scanLimit = 64 * 1024

    /// Allocates the buffer the stack is copied to. Call once, before any handler runs.
    static func prepare() {
        if scanBuffer == nil { scanBuffer = UnsafeMutableRawPointer.allocate(byteCount: scanLimit, alignment: 8) }
    }

    /// Calls `visit` with each word of the stack from `stackPointer` upwards, innermost
    /// first, until it returns a value; returns that value. The stack is copied with
    /// `process_vm_readv`, which stops at the first unreadable page instead of faulting.
    /// Async-signal-safe.
    static func first<Found>(from stackPointer: UInt64, _ visit: (UInt64) -> Found?) -> Found? {
        guard let readMemory, let scanBuffer, stackPointer != 0 else { return nil }
        var local = iovec(iov_base: scanBuffer, iov_len: scanLimit)
        var remote = iovec(iov_base: UnsafeMutableRawPointer(bitPattern: UInt(stackPointer)), iov_len: scanLimit)
        let read = readMemory(getpid(), &local, 1, &remote, 1, 0)
        guard read > 0 else { return nil }
        let words = scanBuffer.assumingMemoryBound(to: UInt64.self)
        for index in 0..<(read / 8) {
            if let found = visit(words[index]) { return found }
        }
        return nil
    }

    /// The address of a local variable of the caller: where its stack is now.
    static func currentStackPointer() -> UInt64 {
        var marker: UInt64 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt64(UInt(bitPattern: $0)) }
    }

    private typealias ReadProcessMemory = @convention(c) (
        pid_t, UnsafePointer<iovec>?, UInt, UnsafePointer<iovec>?, UInt, UInt
    ) -> Int

    /// `process_vm_readv`, a GNU extension the C module leaves out.
    private static let readMemory: ReadProcessMemory? = {
        guard let symbol = dlsym(nil, "process_vm_readv") else { return nil }
        return unsafeBitCast(symbol, to: ReadProcessMemory.self)
    }()

    nonisolated(unsafe) private static var scanBuffer: UnsafeMutableRawPointer?
}
