import PluginABI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A plugin that misbehaves on purpose, the way buggy plugins do: the corpus of the
/// containment tests. What it does is chosen by its settings, or by environment variables
/// for what happens before settings exist (while it loads):
///
/// - `act` (`MISBEHAVER_ACT`): what to do; see ``Act``.
/// - `phase` (`MISBEHAVER_PHASE`): when: `constructor` (its ELF constructor), `load` (its
///   entry point), `bootstrap` (the default), `run` (as a service), `reload`, `shutdown`,
///   `exit` (an `atexit` handler).
/// - `on` (`MISBEHAVER_ON`): where: `inline` (the host's thread that calls it, the
///   default), `thread` (a thread it starts), `task` (a detached Swift task).
/// - `delay` (milliseconds, default 0): how long the thread or task waits before the act.
/// - `wait` (milliseconds, default 2000): how long the phase waits for the thread or task
///   before it returns, so that the act happens during the phase.
/// - `serve` (boolean): its service runs until cancelled, keeping the host in its run
///   phase; otherwise it returns at once.
/// - `log` (`MISBEHAVER_LOG`): a file where it appends `pid N`, `child N` (a process it
///   forked), `daemon N` (a process it daemonized), `act ACT` before it acts, `epipe`, `run`
///   when its service starts, and the phases it went through.
///
/// Outside its phase it behaves: its hooks do nothing. It is a service whose `run` returns
/// at once, unless `serve` is set.
public final class MisbehaverComponent: Bootstrapping {
    public init(_ bootstrapped: Bootstrapped) throws {
        let plan = try Plan(bootstrapped.settings)
        plan.record("pid \(getpid())")
        plan.record("bootstrap \(bootstrapped.pluginName ?? "")")
        if plan.phase == "exit" {
            exitPlan.withLock { $0 = plan }
            atexit { exitPlan.withLock { $0 }?.perform() }
        }
        try plan.perform(in: "bootstrap")
        bootstrapped.lifecycle.run {
            plan.record("run")
            try plan.perform(in: "run")
            if plan.serve {
                do {
                    try await Task.sleep(for: .seconds(3600))
                } catch {
                    plan.record("stopped")
                }
            }
        }
        bootstrapped.lifecycle.onReload { _ in try plan.perform(in: "reload") }
        bootstrapped.lifecycle.onShutdown {
            plan.record("shutdown")
            try plan.perform(in: "shutdown")
        }
    }
}

/// What to do, when and where.
struct Plan: Sendable {
    var act = "none"
    var phase = "bootstrap"
    var on = "inline"
    var delay = 0
    var wait = 2000
    var serve = false
    var log: String?

    init(environment: Bool) {
        act = getenv("MISBEHAVER_ACT").map { String(cString: $0) } ?? act
        phase = getenv("MISBEHAVER_PHASE").map { String(cString: $0) } ?? phase
        on = getenv("MISBEHAVER_ON").map { String(cString: $0) } ?? on
        log = getenv("MISBEHAVER_LOG").map { String(cString: $0) }
    }

    init(_ settings: Settings) throws {
        self.init(environment: true)
        act = try settings.string("act") ?? act
        phase = try settings.string("phase") ?? phase
        on = try settings.string("on") ?? on
        delay = try settings.integer("delay") ?? delay
        wait = try settings.integer("wait") ?? wait
        serve = try settings.bool("serve") ?? serve
        log = try settings.string("log") ?? log
    }

    func record(_ line: String) {
        guard let log else { return }
        appendLine(line, to: log)
    }

    /// Does the act when `phase` is the plan's, where the plan says.
    func perform(in phase: String) throws {
        guard phase == self.phase else { return }
        if act == "throw" { throw Refusal() }
        switch on {
        case "thread":
            startThread { [self] in
                usleep(UInt32(delay) * 1000)
                perform()
            }
            usleep(UInt32(wait) * 1000)
        case "task":
            Task.detached { [self] in
                try? await Task.sleep(for: .milliseconds(delay))
                perform()
            }
            usleep(UInt32(wait) * 1000)
        default:
            perform()
        }
    }

    /// The act itself.
    func perform() {
        record("act \(act) pid \(getpid())")
        switch act {
        case "exit": exit(0)
        case "_exit": _exit(0)
        case "segfault": segfault()
        case "trap": fatalError("Misbehaver gave up")
        case "abort": abort()
        case "reraise-segfault":
            // A crash reporter of its own, which reports nothing and re-raises.
            signal(SIGSEGV) { number in
                signal(number, SIG_DFL)
                raise(number)
            }
            segfault()
        case "ignore-segfault":
            signal(SIGSEGV, SIG_IGN)
            segfault()
        case "blocked-segfault":
            var set = sigset_t()
            sigfillset(&set)
            pthread_sigmask(SIG_BLOCK, &set, nil)
            segfault()
        case "block-signals":
            var set = sigset_t()
            sigfillset(&set)
            pthread_sigmask(SIG_BLOCK, &set, nil)
        case "hang": while true { sleep(1000) }
        case "spin": while true { spinCount.add(1, ordering: .relaxed) }
        case "hold-stdout":
            flockfile(stdoutStream())
            while true { sleep(1000) }
        case "sigpipe":
            var ends: [Int32] = [0, 0]
            _ = pipe(&ends)
            close(ends[0])
            let byte: [UInt8] = [1]
            if write(ends[1], byte, 1) < 0 && errno == EPIPE { record("epipe") }
            close(ends[1])
        case "alarm":
            // Nobody handles SIGALRM; once the timer has gone off (and the host survived its
            // signal), a thread says so.
            alarm(1)
            let plan = self
            startThread {
                var timer = itimerval()
                repeat {
                    usleep(20_000)
                    getitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer)
                } while timer.it_value.tv_sec != 0 || timer.it_value.tv_usec != 0
                plan.record("alarm went off")
            }
        case "flood":
            let line = String(repeating: "banana ", count: 150) + "\n"
            for _ in 0..<256 { print(line, terminator: "") }
        case "close-stdio":
            close(1)
            close(2)
        case "close-all":
            for descriptor in 3..<1024 { close(Int32(descriptor)) }
        case "chdir": _ = chdir("/")
        case "setenv":
            setenv("HOME", "/nonexistent/home", 1)
            setenv("XDG_DATA_HOME", "/nonexistent/data", 1)
        case "fork":
            // The child returns into whatever called the plugin, as the parent does.
            let child = fork()
            if child > 0 { record("child \(child)") }
        case "fork-orphan":
            let child = fork()
            if child == 0 {
                while true { sleep(1000) }
            }
            record("child \(child)")
        case "fork-loop":
            // Starts processes for ever, each through a child that exits at once, leaving its
            // own child (in the worker's process group) running on as an orphan.
            while true {
                let child = fork()
                if child == 0 {
                    if fork() == 0 { while true { sleep(1000) } }
                    _exit(0)
                }
                var status: Int32 = 0
                if child > 0 { _ = waitpid(child, &status, 0) }
            }
        case "daemonize":
            // As a daemon does: a child that leaves the session and forks again, so that
            // what runs on has neither its parent nor its process group.
            var ends: [Int32] = [0, 0]
            _ = pipe(&ends)
            let child = fork()
            if child == 0 {
                _ = setsid()
                let daemon = fork()
                if daemon == 0 {
                    while true { sleep(1000) }
                }
                var pid = daemon
                _ = write(ends[1], &pid, MemoryLayout<Int32>.size)
                _exit(0)
            }
            var daemon: Int32 = 0
            _ = read(ends[0], &daemon, MemoryLayout<Int32>.size)
            close(ends[0])
            close(ends[1])
            var status: Int32 = 0
            _ = waitpid(child, &status, 0)
            record("daemon \(daemon)")
        case "kill-self": raise(SIGKILL)
        case "stop-self": raise(SIGSTOP)
        case "term-self": kill(getpid(), SIGTERM)
        case "stray-signal": raise(SIGUSR1)
        default: break
        }
    }
}

struct Refusal: Error, CustomStringConvertible {
    var description: String { "Misbehaver refuses, as its settings say" }
}

private let exitPlan = Mutex<Plan?>(nil)
private let spinCount = Atomic(0)

@inline(never)
func segfault() {
    UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
}

/// C's `stdout`, which Swift 6 does not let code read directly.
func stdoutStream() -> UnsafeMutablePointer<FILE> {
    dlsym(nil, "stdout")!.load(as: UnsafeMutablePointer<FILE>.self)
}

/// Starts a detached thread running `body`.
func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    pthread_create(&thread, nil, { argument in
        Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
        return nil
    }, box)
    pthread_detach(thread)
}

@c func misbehaverLoaded() {
    let plan = Plan(environment: true)
    if plan.phase == "constructor" { plan.perform() }
}

@section(".init_array") @used let misbehaveOnLoad: @convention(c) () -> Void = misbehaverLoaded

@c(plugin_host_bootstrapping)
public func pluginHostBootstrapping() -> UnsafeMutableRawPointer {
    let plan = Plan(environment: true)
    if plan.phase == "load" { plan.perform() }
    return PluginEntryPoint.export(MisbehaverComponent.self)
}
