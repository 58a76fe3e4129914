#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// Starts a detached thread running `body`, with every signal unblocked; returns whether it
/// started (it does not when the system refuses another thread).
@discardableResult
func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    let created = pthread_create(&thread, nil, { argument in
        let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
        unblockAllSignalsOfThisThread()
        box.body()
        return nil
    }, box)
    if created == 0 {
        pthread_detach(thread)
    } else {
        Unmanaged<Box>.fromOpaque(box).release()
    }
    return created == 0
}

/// Unblocks every signal in the calling thread: plugin code may have blocked some on a
/// thread the host lends it, and a crash signal blocked on it would end the process without
/// a report.
func unblockAllSignalsOfThisThread() {
    var none = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, nil)
}

/// A counting semaphore whose wait can time out.
final class Semaphore: @unchecked Sendable {
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func signal() { sem_post(semaphore) }

    /// Waits for a signal, for at most `timeout` when given.
    func wait(timeout: Duration?) {
        _ = wait(until: timeout.map { .now + $0 })
    }

    /// Waits for a signal until `deadline`, when given.
    ///
    /// - Returns: Whether a signal came; `false` when the deadline passed.
    func wait(until deadline: MonotonicInstant?) -> Bool {
        guard let deadline, deadline != .distantFuture else {
            _ = SystemCall.retryingOnInterrupt { sem_wait(semaphore) }
            return true
        }
        while true {
            let remaining = (deadline - .now).nanoseconds
            guard remaining > 0 else { return sem_trywait(semaphore) == 0 }
            // sem_timedwait takes a wall-clock time: wait in short pieces, so that a change of
            // the wall clock cannot stretch the wait.
            let piece = min(remaining, 100_000_000)
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            var until = timespec(tv_sec: now.tv_sec, tv_nsec: now.tv_nsec + Int(piece))
            if until.tv_nsec >= 1_000_000_000 {
                until.tv_sec += until.tv_nsec / 1_000_000_000
                until.tv_nsec %= 1_000_000_000
            }
            if sem_timedwait(semaphore, &until) == 0 { return true }
            guard errno == ETIMEDOUT || errno == EINTR else { return false }
        }
    }
}

/// The number of processors online.
var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

/// Which thread the calling code runs on.
enum ThreadIdentity {
    /// The calling thread's `pthread_t`, as a number. Async-signal-safe.
    static var current: UInt64 { UInt64(pthread_self()) }
}
