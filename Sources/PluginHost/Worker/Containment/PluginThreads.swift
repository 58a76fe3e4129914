import Synchronization

/// Threads of the host's own that run all plugin code: never Swift's cooperative pool, whose
/// few threads (one per processor) blocking plugin code would take from the host.
///
/// Each thread has a slot in the supervision page and says in it whose code it runs, so that
/// a crash or a stray `exit()` names the right plugin even when several run at once. A
/// plugin's asynchronous code runs here too: its task prefers a ``PluginExecutor``, so every
/// piece between suspension points is a job on these threads; a task that is waiting holds
/// no thread.
///
/// With a limit (`--jobs` for bootstraps) at most that many threads run plugin code at once.
/// Without one, a new thread starts whenever work arrives and every thread is busy, so that
/// plugin code that never returns (a stuck shutdown hook, a service that ignores
/// cancellation) cannot keep the next piece of plugin code from running.
final class PluginThreads: Sendable {
    /// Work for a thread: a job of a plugin task, or a piece of host code that calls
    /// plugin code itself (and says so with ``PluginThread/running(_:phase:_:)``).
    fileprivate enum Work {
        case job(UnownedJob, PluginExecutor)
        case call(@Sendable (PluginThread) -> Void)
    }

    private struct State {
        var queue: [Work] = []
        var head = 0
        var threads = 0
        var waiting = 0

        var pending: Int { queue.count - head }

        mutating func pop() -> Work? {
            guard head < queue.count else { return nil }
            defer {
                head += 1
                if head == queue.count {
                    queue.removeAll(keepingCapacity: true)
                    head = 0
                }
            }
            return queue[head]
        }
    }

    private let state = Mutex(State())
    private let available = Semaphore()
    private let limit: Int?
    let link: WorkerLink

    /// - Parameters:
    ///   - limit: The most threads; `nil` for a new one whenever all are busy.
    ///   - link: Where the threads say whose code they run.
    init(limit: Int?, link: WorkerLink) {
        self.limit = limit
        self.link = link
    }

    /// The executor for the code of plugin `plugin` (`nil`: the host's) in `phase`.
    func executor(for plugin: PluginNumber?, phase: Phase) -> PluginExecutor {
        PluginExecutor(threads: self, plugin: plugin, phase: phase)
    }

    /// Runs `work` on one of the threads.
    func submit(_ work: @escaping @Sendable (PluginThread) -> Void) {
        enqueue(.call(work))
    }

    fileprivate func enqueue(_ work: Work) {
        let startsThread = state.withLock { state -> Bool in
            state.queue.append(work)
            guard state.pending > state.waiting, state.threads < (limit ?? .max) else { return false }
            state.threads += 1
            return true
        }
        if startsThread && !startDetachedThread({ [self] in serve() }) {
            state.withLock { $0.threads -= 1 }
        }
        available.signal()
    }

    private func serve() {
        FatalSignals.installAlternateStack()
        let thread = PluginThread(slot: link.page.claimSlot(for: ThreadIdentity.current), page: link.page)
        while true {
            let work = state.withLock { state -> Work? in
                if let work = state.pop() { return work }
                state.waiting += 1
                return nil
            }
            guard let work else {
                available.wait(timeout: nil)
                state.withLock { $0.waiting -= 1 }
                continue
            }
            switch work {
            case .job(let job, let executor):
                let (plugin, phase) = executor.attribution
                thread.running(plugin, phase: phase) {
                    job.runSynchronously(on: executor.asUnownedTaskExecutor())
                    ExitTrap.endIfForkedCopy()
                }
            case .call(let body):
                body(thread)
            }
            ExitTrap.endIfForkedCopy()
        }
    }
}

/// One of the ``PluginThreads``, as the work it runs sees it.
struct PluginThread: Sendable {
    fileprivate let slot: Int?
    fileprivate let page: SupervisionPage

    /// Runs `body`, which runs code of `plugin` (`nil`: the host's) in `phase`, and says so
    /// in the thread's slot. Afterwards the thread's signal mask is the host's again, whatever
    /// the plugin blocked: a crash signal left blocked would end the process without a record
    /// the next time any code crashes on this thread.
    func running<Result>(_ plugin: PluginNumber?, phase: Phase, _ body: () throws -> Result) rethrows -> Result {
        if let slot { page.setSlot(slot, plugin: plugin, phase: phase) }
        defer {
            unblockAllSignalsOfThisThread()
            if let slot { page.setSlot(slot, plugin: nil, phase: .unknown) }
        }
        return try body()
    }
}

/// The executor of one plugin's code in one phase: runs its jobs on the ``PluginThreads``.
///
/// A task that calls several plugins one after another keeps one executor and retargets it
/// before each call (``retarget(to:phase:)``), instead of switching executors, which would
/// hand the task over to another thread at every call.
final class PluginExecutor: TaskExecutor, Sendable {
    private let threads: PluginThreads
    private let target: Mutex<(plugin: PluginNumber?, phase: Phase)>

    fileprivate init(threads: PluginThreads, plugin: PluginNumber?, phase: Phase) {
        self.threads = threads
        target = Mutex((plugin, phase))
    }

    /// Whose code the executor's jobs run, and in which phase.
    var attribution: (plugin: PluginNumber?, phase: Phase) { target.withLock { $0 } }

    /// Makes the executor's jobs, and the job running now on the calling thread, run code of
    /// `plugin` (`nil`: the host's) in `phase` from now on, with the host's signal mask.
    func retarget(to plugin: PluginNumber?, phase: Phase) {
        unblockAllSignalsOfThisThread()
        target.withLock { $0 = (plugin, phase) }
        let page = threads.link.page
        page.slot(of: ThreadIdentity.current).map { page.setSlot($0, plugin: plugin, phase: phase) }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        threads.enqueue(.job(UnownedJob(job), self))
    }
}
