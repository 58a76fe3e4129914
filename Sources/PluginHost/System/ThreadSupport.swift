#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// Starts a detached thread running `body`; returns whether it started (it does not when
/// the system refuses another thread).
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
        guard let timeout else {
            while sem_wait(semaphore) != 0 && errno == EINTR {}
            return
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let (seconds, attoseconds) = timeout.components
        var deadline = timespec(
            tv_sec: now.tv_sec + Int(seconds), tv_nsec: now.tv_nsec + Int(attoseconds / 1_000_000_000))
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        while sem_timedwait(semaphore, &deadline) != 0 && errno == EINTR {}
    }
}

/// Ends the process at once with `status`, without running `atexit` handlers or flushing
/// C streams: for a host that must not wait for a stuck plugin.
func exitImmediately(_ status: Int32) -> Never {
    _exit(status)
}

/// The number of processors online.
var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
