#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// How a child process ended.
enum Termination: Equatable, Sendable {
    /// It called `exit` or `_exit` with this status.
    case exited(Int32)
    /// A signal ended it.
    case signalled(Signal)
}

/// Processes: forking the worker, waiting for it, and ending what is left of its tree.
enum ProcessControl {
    /// The calling process's id.
    static var current: ProcessID { ProcessID(rawValue: getpid()) }

    /// Forks, with every signal blocked around the fork so that neither process runs a
    /// handler of the other's. Both continue with the signals blocked; each unblocks them
    /// once its own handlers are in place (``unblockAllSignals()``).
    ///
    /// - Parameter purpose: What the child is for, as an error names it: `the worker process`.
    /// - Returns: The child's id in the parent, 0 in the child.
    /// - Throws: ``SystemError`` when the system refuses another process.
    static func forkBlockingSignals(for purpose: String = "the worker process") throws(SystemError) -> ProcessID {
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        let child = fork()
        guard child >= 0 else {
            let error = SystemError("fork " + purpose)
            unblockAllSignals()
            throw error
        }
        return ProcessID(rawValue: child)
    }

    /// Unblocks every signal in the calling thread.
    static func unblockAllSignals() {
        unblockAllSignalsOfThisThread()
    }

    /// Lowers the calling process's scheduling priority to the least (nice 19): for work that
    /// must not take a processor from the plugins'.
    static func yieldProcessorToOthers() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
    }

    /// Ignores `signals` from now on (`SIG_IGN`): for a child whose work must finish whoever
    /// signals its process group.
    static func ignore(_ signals: [Signal]) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_IGN
        for signal in signals { _ = sigaction(signal.rawValue, &action, nil) }
    }

    /// Puts process `process` into a new process group of its own.
    static func makeProcessGroupLeader(_ process: ProcessID) {
        _ = setpgid(process.rawValue, process.rawValue)
    }

    /// Has the kernel send `signal` to the calling process when its parent dies, and sends
    /// it at once if the parent (`parent`) is gone already.
    static func endWithParent(_ parent: ProcessID, signal: Signal = .kill) {
        _ = processControl(1 /* PR_SET_PDEATHSIG */, UInt(signal.rawValue))
        if getppid() != parent.rawValue { raise(signal.rawValue) }
    }

    /// Makes the calling process adopt the orphaned descendants of its children
    /// (`PR_SET_CHILD_SUBREAPER`): a process whose parent ends is re-parented to the nearest
    /// such ancestor instead of to init, so that the ancestor can end every process its
    /// children started. Not inherited across `fork`.
    static func adoptOrphans() {
        _ = processControl(36 /* PR_SET_CHILD_SUBREAPER */, 1)
    }

    /// Sends `signal` to `process`; whether it existed.
    @discardableResult
    static func send(_ signal: Signal, to process: ProcessID) -> Bool {
        kill(process.rawValue, signal.rawValue) == 0
    }

    /// Sends `signal` to every process of group `group`; whether any existed.
    @discardableResult
    static func send(_ signal: Signal, toGroup group: ProcessID) -> Bool {
        kill(-group.rawValue, signal.rawValue) == 0
    }

    /// What happened to a child process since it was last asked.
    enum ChildChange: Equatable {
        case ended(Termination)
        /// A signal stopped it (SIGSTOP, SIGTSTP, ...).
        case stopped(Signal)
        /// SIGCONT resumed it.
        case continued
    }

    /// What happened to `process`, if anything: it ended (and is reaped), stopped, or was
    /// resumed. Does not wait.
    static func change(of process: ProcessID) -> ChildChange? {
        var status: Int32 = 0
        let result = SystemCall.retryingOnInterrupt { waitpid(process.rawValue, &status, WNOHANG | WUNTRACED | WCONTINUED) }
        guard result == process.rawValue else { return nil }
        if status == 0xFFFF { return .continued }
        if status & 0xFF == 0x7F { return .stopped(Signal(rawValue: (status >> 8) & 0xFF)) }
        return .ended(termination(status))
    }

    /// Reaps every child that has ended, and says how each ended.
    static func reapAll() -> [(process: ProcessID, termination: Termination)] {
        var reaped: [(ProcessID, Termination)] = []
        var status: Int32 = 0
        while true {
            let result = SystemCall.retryingOnInterrupt { waitpid(-1, &status, WNOHANG) }
            guard result > 0 else { return reaped }
            reaped.append((ProcessID(rawValue: result), termination(status)))
        }
    }

    /// The children of the calling process, from each of its threads'
    /// `/proc/PID/task/TID/children` (without scanning every process); with the kernels that
    /// lack that file, from every process's `/proc/PID/stat`.
    static func children() -> [ProcessID] {
        guard hasChildren else { return [] }
        let me = getpid()
        guard let threads = try? directoryEntries(at: "/proc/\(me)/task"), !threads.isEmpty,
            let listed = try? threads.map({ thread throws(SystemError) in
                try ReadOnlyFile(path: "/proc/\(me)/task/\(thread)/children").read(count: 65_536, at: 0)
            })
        else { return processes { parent, _ in parent == me } }
        return listed.flatMap { bytes in
            String(decoding: bytes, as: UTF8.self).split(separator: " ").compactMap { Int32($0).map(ProcessID.init(rawValue:)) }
        }
    }

    /// Whether the calling process has a child process, alive or not yet reaped (of any of
    /// its threads): `waitid` without waiting and without reaping fails with `ECHILD` only
    /// when there is none.
    static var hasChildren: Bool {
        var info = siginfo_t()
        return waitid(P_ALL, 0, &info, WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT) == 0 || errno != ECHILD
    }

    /// The live members (not zombies) of process group `group`.
    static func members(ofGroup group: ProcessID) -> [ProcessID] {
        processes { _, processGroup in processGroup == group.rawValue }
    }

    /// The live processes (not zombies), from `/proc`, whose parent and process group
    /// satisfy `condition`; never the calling process.
    private static func processes(where condition: (_ parent: Int32, _ group: Int32) -> Bool) -> [ProcessID] {
        let me = getpid()
        guard let entries = try? directoryEntries(at: "/proc") else { return [] }
        return entries.compactMap { name -> ProcessID? in
            guard let process = Int32(name), process != me,
                let stat = try? ReadOnlyFile(path: "/proc/\(name)/stat").read(count: 512, at: 0)
            else { return nil }
            // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses; the
            // fields after its last ')' are plain.
            guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
            let fields = String(decoding: stat[(close + 1)...], as: UTF8.self).split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", let parent = Int32(fields[1]), let processGroup = Int32(fields[2])
            else { return nil }
            return condition(parent, processGroup) ? ProcessID(rawValue: process) : nil
        }
    }

    /// Ends, with SIGKILL, every live member of process group `group`, and when
    /// `orphansExcept` is given, every child of the calling process but those it lists;
    /// waits up to two seconds for them to go, reaping the children it ended (and only
    /// those: a child it keeps is left for its own waiter).
    ///
    /// - Returns: The processes it ended.
    static func endProcesses(inGroup group: ProcessID?, orphansExcept kept: Set<ProcessID>?) -> [ProcessID] {
        var ended: Set<ProcessID> = []
        let deadline = MonotonicInstant.now + .seconds(2)
        while MonotonicInstant.now < deadline {
            reap(ended)
            var left: Set<ProcessID> = []
            if let kept {
                // Children that have ended already are reaped, not signalled.
                let orphans = children().filter { !kept.contains($0) }
                left.formUnion(Set(orphans).subtracting(reap(orphans)))
            }
            // Every process is read only when the group has a member left.
            if let group, kill(-group.rawValue, 0) == 0 { left.formUnion(members(ofGroup: group)) }
            guard !left.isEmpty else { break }
            for process in left where send(.kill, to: process) { ended.insert(process) }
            sleep(nanoseconds: 2_000_000)
        }
        reap(ended)
        return ended.sorted()
    }

    /// Reaps those of `processes` that are children of the calling process and have ended.
    ///
    /// - Returns: The ones it reaped.
    @discardableResult
    private static func reap<Processes: Sequence<ProcessID>>(_ processes: Processes) -> Set<ProcessID> {
        var reaped: Set<ProcessID> = []
        var status: Int32 = 0
        for process in processes where SystemCall.retryingOnInterrupt({ waitpid(process.rawValue, &status, WNOHANG) }) == process.rawValue {
            reaped.insert(process)
        }
        return reaped
    }

    /// The kernel's id of the calling thread.
    static var currentThread: Int32 { threadIDFunction?() ?? getpid() }

    private typealias ThreadID = @convention(c) () -> Int32

    /// `gettid`, which the C module leaves out.
    private static let threadIDFunction: ThreadID? = {
        guard let symbol = dlsym(nil, "gettid") else { return nil }
        return unsafeBitCast(symbol, to: ThreadID.self)
    }()

    /// Blocks every signal in the calling thread and sleeps for ever: for a thread that
    /// must never run code again, and must not take signals meant for the process.
    static func parkCallingThread() -> Never {
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        while true { pause() }
    }

    /// The processor time the calling process used so far, user and system, in seconds: its
    /// children's not included.
    static var processorSeconds: Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Sleeps for `nanoseconds`.
    static func sleep(nanoseconds: Int64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        _ = SystemCall.retryingOnInterrupt {
            defer { request = remaining }
            return nanosleep(&request, &remaining)
        }
    }

    private static func termination(_ status: Int32) -> Termination {
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(Signal(rawValue: signal))
    }

    /// Ends the calling process at once with `status`: no `atexit` handlers, no flushing.
    static func exitImmediately(_ status: Int32) -> Never {
        _exit(status)
    }

    /// Ends the calling process with `status`, running `atexit` handlers and flushing C
    /// streams.
    static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    private typealias ProcessControlCall = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32

    /// `prctl`, which the C module leaves out because it is variadic; its arguments are
    /// machine words, so the fixed-argument prototype calls it correctly.
    private static let prctlFunction: ProcessControlCall? = {
        guard let symbol = dlsym(nil, "prctl") else { return nil }
        return unsafeBitCast(symbol, to: ProcessControlCall.self)
    }()

    private static func processControl(_ option: Int32, _ argument: UInt) -> Int32 {
        prctlFunction?(option, argument, 0, 0, 0) ?? -1
    }
}
