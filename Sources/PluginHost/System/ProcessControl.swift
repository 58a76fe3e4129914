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
    case signalled(Int32)
}

/// Processes: forking the worker, waiting for it, and ending what is left of its tree.
enum ProcessControl {
    /// The calling process's id.
    static var current: Int32 { getpid() }

    /// Forks, with every signal blocked around the fork so that neither process runs a
    /// handler of the other's. Both continue with the signals blocked; each unblocks them
    /// once its own handlers are in place (``unblockAllSignals()``).
    ///
    /// - Returns: The child's id in the parent, 0 in the child.
    /// - Throws: ``SystemError`` when the system refuses another process.
    static func forkBlockingSignals() throws(SystemError) -> Int32 {
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        let child = fork()
        guard child >= 0 else {
            let error = SystemError("fork the worker process")
            unblockAllSignals()
            throw error
        }
        return child
    }

    /// Unblocks every signal in the calling thread.
    static func unblockAllSignals() {
        unblockAllSignalsOfThisThread()
    }

    /// Puts process `process` into a new process group of its own.
    static func makeProcessGroupLeader(_ process: Int32) {
        _ = setpgid(process, process)
    }

    /// Has the kernel send `signal` to the calling process when its parent dies, and sends
    /// it at once if the parent (`parent`) is gone already.
    static func endWithParent(_ parent: Int32, signal: Int32 = SIGKILL) {
        _ = processControl(1 /* PR_SET_PDEATHSIG */, UInt(signal))
        if getppid() != parent { raise(signal) }
    }

    /// Makes the calling process adopt the orphaned descendants of its children, so that
    /// it can end every process they started (`PR_SET_CHILD_SUBREAPER`).
    static func adoptOrphans() {
        _ = processControl(36 /* PR_SET_CHILD_SUBREAPER */, 1)
    }

    /// Sends `signal` to `process`; whether it existed.
    @discardableResult
    static func send(_ signal: Int32, to process: Int32) -> Bool {
        kill(process, signal) == 0
    }

    /// Sends `signal` to every process of group `group`; whether any existed.
    @discardableResult
    static func send(_ signal: Int32, toGroup group: Int32) -> Bool {
        kill(-group, signal) == 0
    }

    /// What happened to a child process since it was last asked.
    enum ChildChange: Equatable {
        case ended(Termination)
        /// A signal stopped it (SIGSTOP, SIGTSTP, ...).
        case stopped(Int32)
        /// SIGCONT resumed it.
        case continued
    }

    /// What happened to `process`, if anything: it ended (and is reaped), stopped, or was
    /// resumed. Does not wait.
    static func change(of process: Int32) -> ChildChange? {
        var status: Int32 = 0
        var result: Int32
        repeat { result = waitpid(process, &status, WNOHANG | WUNTRACED | WCONTINUED) } while result < 0 && errno == EINTR
        guard result == process else { return nil }
        if status == 0xFFFF { return .continued }
        if status & 0xFF == 0x7F { return .stopped((status >> 8) & 0xFF) }
        return .ended(termination(status))
    }

    /// Reaps every child that has ended, and says how each ended.
    static func reapAll() -> [(process: Int32, termination: Termination)] {
        var reaped: [(Int32, Termination)] = []
        var status: Int32 = 0
        while true {
            let result = waitpid(-1, &status, WNOHANG)
            if result > 0 {
                reaped.append((result, termination(status)))
                continue
            }
            if result < 0 && errno == EINTR { continue }
            return reaped
        }
    }

    /// The children of the calling process, from each of its threads'
    /// `/proc/PID/task/TID/children` (without scanning every process); with the kernels that
    /// lack that file, from every process's `/proc/PID/stat`.
    static func children() -> [Int32] {
        guard hasChildren else { return [] }
        let me = getpid()
        guard let threads = try? directoryEntries(at: "/proc/\(me)/task"), !threads.isEmpty,
            let listed = try? threads.map({ thread throws(SystemError) in
                try ReadOnlyFile(path: "/proc/\(me)/task/\(thread)/children").read(count: 65_536, at: 0)
            })
        else { return processes { parent, _ in parent == me } }
        return listed.flatMap { bytes in String(decoding: bytes, as: UTF8.self).split(separator: " ").compactMap { Int32($0) } }
    }

    /// Whether the calling process has a child process, alive or not yet reaped (of any of
    /// its threads): `waitid` without waiting and without reaping fails with `ECHILD` only
    /// when there is none.
    static var hasChildren: Bool {
        var info = siginfo_t()
        return waitid(P_ALL, 0, &info, WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT) == 0 || errno != ECHILD
    }

    /// The live members (not zombies) of process group `group`.
    static func members(ofGroup group: Int32) -> [Int32] {
        processes { _, processGroup in processGroup == group }
    }

    /// The live processes (not zombies), from `/proc`, whose parent and process group
    /// satisfy `condition`; never the calling process.
    private static func processes(where condition: (_ parent: Int32, _ group: Int32) -> Bool) -> [Int32] {
        let me = getpid()
        guard let entries = try? directoryEntries(at: "/proc") else { return [] }
        return entries.compactMap { name -> Int32? in
            guard let process = Int32(name), process != me,
                let stat = try? ReadOnlyFile(path: "/proc/\(name)/stat").read(count: 512, at: 0)
            else { return nil }
            // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses; the
            // fields after its last ')' are plain.
            guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
            let fields = String(decoding: stat[(close + 1)...], as: UTF8.self).split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", let parent = Int32(fields[1]), let processGroup = Int32(fields[2])
            else { return nil }
            return condition(parent, processGroup) ? process : nil
        }
    }

    /// Ends, with SIGKILL, every live member of process group `group`, and when
    /// `orphansExcept` is given, every child of the calling process but those it lists;
    /// waits up to two seconds for them to go, reaping what ends.
    ///
    /// - Returns: The processes it ended.
    static func endProcesses(inGroup group: Int32?, orphansExcept kept: Set<Int32>?) -> [Int32] {
        var ended: Set<Int32> = []
        let deadline = MonotonicClock.now + 2_000_000_000
        while MonotonicClock.now < deadline {
            _ = reapAll()
            var left = Set(kept.map { kept in children().filter { !kept.contains($0) } } ?? [])
            // Every process is read only when the group has a member left.
            if let group, kill(-group, 0) == 0 { left.formUnion(members(ofGroup: group)) }
            guard !left.isEmpty else { break }
            for process in left where send(SIGKILL, to: process) { ended.insert(process) }
            sleep(nanoseconds: 2_000_000)
            _ = reapAll()
        }
        return ended.sorted()
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

    /// Sleeps for `nanoseconds`.
    static func sleep(nanoseconds: Int64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    private static func termination(_ status: Int32) -> Termination {
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
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
