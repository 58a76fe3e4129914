#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

import Synchronization

/// Catches two ways plugin code can end or copy the worker without a signal: a call to
/// `exit()` the host did not make (recorded in the supervision page with its culprit, found
/// as a crash's is), and a `fork()` whose child would go on running host code. A forked
/// child loses the shared page at once (it gets private memory in its place), so nothing it
/// does reaches the supervisor, and it ends as soon as it returns into host code
/// (``endIfForkedCopy()``); the supervisor ends it at the latest when the run ends.
///
/// `_exit()` cannot be caught in the process: the supervisor notices that the worker ended
/// without saying it would.
enum ExitTrap {
    /// Installs the `exit` handler and the fork handler. Call once in the worker, before
    /// any plugin code runs.
    ///
    /// - Parameter status: The worker's exit status after a plugin called `exit()`.
    static func install(recordingIn page: SupervisionPage, exitStatus status: Int32) {
        exitPage = page
        pluginExitStatus = status
        _ = on_exit({ status, _ in exitHandler(status) }, nil)
        _ = pthread_atfork(nil, nil, {
            forkedCopy.store(true, ordering: .relaxed)
            exitPage?.detach()
        })
    }

    /// Whether this process is a child that plugin code forked from the worker: it must not
    /// run host code, which would report, write and shut down a second time.
    static var isForkedCopy: Bool { forkedCopy.load(ordering: .relaxed) }

    /// Ends the process at once when it is a forked copy, without flushing what its parent
    /// had buffered. Call where plugin code returns into host code, before anything else.
    static func endIfForkedCopy() {
        if isForkedCopy { _exit(0) }
    }

    /// Records that the host itself is exiting with `status`, so that the `exit` handler
    /// lets it through; plugin code that ends the process afterwards is still noticed by
    /// the supervisor, which compares the status.
    static func hostExits(with status: Int32) {
        exitPage?.intendedStatus.store(status)
        exitPage?.exiting.store(1)
    }
}

nonisolated(unsafe) private var exitPage: SupervisionPage?
nonisolated(unsafe) private var pluginExitStatus: Int32 = 70
private let forkedCopy = Atomic(false)

private func exitHandler(_ status: Int32) {
    if ExitTrap.isForkedCopy { _exit(status) }
    guard let page = exitPage else { return }
    guard page.exiting.load() == 0 else {
        // The host is exiting, and this handler, installed first, runs last: the C library
        // flushes its streams next, waiting for their locks. A plugin thread that holds one
        // forever (blocked writing to a pipe nobody reads) would hold up the exit: flush
        // what is free and leave now.
        if !StandardStreams.flushIfUnlocked() { _exit(status) }
        return
    }
    var marker: UInt64 = 0
    let stackPointer = withUnsafeMutablePointer(to: &marker) { UInt64(UInt(bitPattern: $0)) }
    var record = FatalSignals.blame(stackFrom: stackPointer, faultingCode: nil, in: page)
    record.status = status
    page.exitCall = record
    StandardStreams.flushIfUnlocked()
    _exit(pluginExitStatus)
}
