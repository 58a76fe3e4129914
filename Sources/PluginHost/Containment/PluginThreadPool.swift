import Synchronization

/// The threads that run plugin code: `--jobs` of them.
///
/// Each plugin gets a ``PluginExecutor`` for its load and its bootstrap; its task prefers
/// that executor, so every piece of the plugin's code, synchronous or between the
/// suspension points of an `async` bootstrap, runs on one of these threads. Before a thread
/// runs a piece, it tells ``FatalSignals`` whose code it is, so a crash names the right
/// plugin even when several run at once. A synchronous bootstrap holds its thread until it
/// returns; an asynchronous one that is waiting holds none.
final class PluginThreadPool: Sendable {
    /// Jobs waiting for a thread, first in first out.
    private struct Queue {
        var items: [(job: UnownedJob, executor: PluginExecutor)] = []
        var head = 0

        mutating func append(_ item: (job: UnownedJob, executor: PluginExecutor)) { items.append(item) }

        mutating func popFirst() -> (job: UnownedJob, executor: PluginExecutor)? {
            guard head < items.count else { return nil }
            defer {
                head += 1
                if head == items.count {
                    items.removeAll(keepingCapacity: true)
                    head = 0
                }
            }
            return items[head]
        }
    }

    private let queue = Mutex(Queue())
    private let available = Semaphore()

    /// Starts `count` threads. Each takes its crash-report slot before it runs a job, so
    /// nobody needs to wait for them.
    init(threads count: Int) {
        for _ in 0..<count {
            startDetachedThread { [self] in serve(slot: FatalSignals.registerCurrentThread()) }
        }
    }

    /// An executor for the code that `label` names during `phase`: a plugin's
    /// (`plugin NAME (FILE)`, phase `bootstrap`), or the host's own when that code names each
    /// plugin it runs itself with ``FatalSignals/describeCurrentThread(subject:phase:isPluginCode:)``.
    func executor(label: String, phase: String) -> PluginExecutor {
        PluginExecutor(pool: self, label: label, phase: phase)
    }

    fileprivate func submit(_ job: UnownedJob, from executor: PluginExecutor) {
        queue.withLock { $0.append((job, executor)) }
        available.signal()
    }

    private func serve(slot: Int) {
        while true {
            available.wait(timeout: nil)
            guard let (job, executor) = queue.withLock({ $0.popFirst() }) else { continue }
            FatalSignals.describe(slot: slot, subject: executor.label, phase: executor.phase, isPluginCode: true)
            job.runSynchronously(on: executor.asUnownedTaskExecutor())
            FatalSignals.describe(slot: slot, subject: "plugin-host", phase: "its own work")
        }
    }
}

/// The executor of one plugin's code in one phase: runs it on the ``PluginThreadPool``.
final class PluginExecutor: TaskExecutor, Sendable {
    private let pool: PluginThreadPool
    let label: String
    let phase: String

    fileprivate init(pool: PluginThreadPool, label: String, phase: String) {
        self.pool = pool
        self.label = label
        self.phase = phase
    }

    func enqueue(_ job: consuming ExecutorJob) {
        pool.submit(UnownedJob(job), from: self)
    }
}
