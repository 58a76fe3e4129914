#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

import Synchronization

/// Catches two ways other code can end or copy the process without a signal: a call to
/// `exit()` the host did not make (handed to a recorder, with the calling thread's stack),
/// and a `fork()` whose child would go on running host code. A forked child loses the
/// shared memory at once (it gets private memory in its place), so nothing it does
/// reaches the other process, and it ends as soon as it returns into host code
/// (``endIfForkedCopy()``).
///
/// `_exit()` cannot be caught in the process: the supervisor notices that the worker ended
/// without saying it would.
enum ExitTrap {
    /// Called with the status `exit` was called with and the calling thread's stack
    /// pointer, when the host did not call it. Must be async-signal-safe.
    typealias Recorder = @convention(c) (_ status: Int32, _ stack: UInt64) -> Void

    /// Installs the `exit` handler and the fork handler. Call once, before any plugin code
    /// runs.
    ///
    /// - Parameters:
    ///   - recorder: What to call with an `exit` call the host did not make.
    ///   - status: The exit status after such a call.
    ///   - shared: The memory a forked child must not keep sharing.
    static func install(recorder: Recorder, exitStatus status: Int32, detaching shared: SharedMemory) {
        exitRecorder = recorder
        pluginExitStatus = status
        detachedOnFork = shared
        _ = on_exit({ status, _ in exitHandler(status) }, nil)
        _ = pthread_atfork(nil, nil, {
            forkedCopy.store(true, ordering: .relaxed)
            detachedOnFork?.detach()
        })
    }

    /// Whether this process is a child that other code forked: it must not run host code,
    /// which would report, write and shut down a second time.
    static var isForkedCopy: Bool { forkedCopy.load(ordering: .relaxed) }

    /// Ends the process at once when it is a forked copy, without flushing what its parent
    /// had buffered. Call where plugin code returns into host code, before anything else.
    static func endIfForkedCopy() {
        if isForkedCopy { _exit(0) }
    }

    /// Records that the host itself is exiting, so that the `exit` handler lets it through.
    static func hostExits() {
        hostExiting.store(true, ordering: .sequentiallyConsistent)
    }
}

nonisolated(unsafe) private var exitRecorder: ExitTrap.Recorder?
nonisolated(unsafe) private var detachedOnFork: SharedMemory?
nonisolated(unsafe) private var pluginExitStatus: Int32 = 70
private let forkedCopy = Atomic(false)
private let hostExiting = Atomic(false)

private func exitHandler(_ status: Int32) {
    if ExitTrap.isForkedCopy { _exit(status) }
    guard !hostExiting.load(ordering: .sequentiallyConsistent) else {
        // The host is exiting, and this handler, installed first, runs last: the C library
        // flushes its streams next, waiting for their locks. A plugin thread that holds one
        // forever (blocked writing to a pipe nobody reads) would hold up the exit: flush
        // what is free and leave now.
        if !StandardStreams.flushIfUnlocked() { _exit(status) }
        return
    }
    exitRecorder?(status, StackWords.currentStackPointer())
    StandardStreams.flushIfUnlocked()
    _exit(pluginExitStatus)
}
