import Synchronization

/// A thread that runs the code of one plugin at a time: a task executor, so that a
/// plugin's bootstrap, synchronous or asynchronous, runs on it when its task prefers it.
///
/// Because each running plugin has a thread of its own, a crash is reported with the right
/// plugin's name even when several bootstrap at once (``FatalSignals`` keeps a slot per
/// thread).
final class PluginThread: TaskExecutor, Sendable {
    private let registeredSlot = Mutex(0)
    private let queue = Mutex<[UnownedJob]>([])
    private let available = Semaphore()

    /// The crash-report slot of this thread.
    var slot: Int { registeredSlot.withLock { $0 } }

    /// Starts the thread and waits until it has registered its crash-report slot.
    init() {
        let registered = Semaphore()
        startDetachedThread { [self] in
            registeredSlot.withLock { $0 = FatalSignals.registerCurrentThread() }
            registered.signal()
            serve()
        }
        registered.wait(timeout: nil)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.append(job) }
        available.signal()
    }

    private func serve() {
        while true {
            available.wait(timeout: nil)
            guard let job = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
