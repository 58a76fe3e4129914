#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// One thing that happens to a supervised host in a simulated run: time passing, a signal,
/// a plugin file changing, a worker crashing or hanging. A run is a list of them, which
/// replays exactly: an operation that does not apply when it comes (a crash with no worker
/// alive) does nothing, so that any sub-list is a run too, and a failing run can be shrunk.
enum FaultOperation: Equatable, Sendable, CustomStringConvertible {
    /// Which worker an operation hits.
    enum Target: Equatable, Sendable, CaseIterable {
        /// The one that speaks for the host.
        case current
        /// The newest one alive (an upgrade's candidate while there is one).
        case newest
        /// The oldest one alive.
        case oldest
    }

    /// How a worker's end looks to the supervisor.
    enum Death: Equatable, Sendable, CaseIterable {
        /// A crash whose record names a plugin that was running.
        case crashNamingPlugin
        /// A crash on a thread the host did not start, with no plugin's code on its stack.
        case crashNamingNobody
        /// `exit()` called by a plugin.
        case exitCall
        /// `_exit()`: no record; the plugins whose code ran are named.
        case underscoreExit
        /// SIGKILL from outside while only services wait for work.
        case killedWhileIdle
        /// SIGKILL from outside while a plugin is in a short call.
        case killedInShortCall
    }

    /// What a build of a plugin file does.
    enum Build: Equatable, Sendable, CaseIterable {
        case good
        case failsToLoad
        case hangsInLoad
        case crashesInBootstrap
        case throwsInBootstrap
        /// Not a plugin at all: not ELF, no manifest, a half-written file.
        case junk
    }

    /// What an operator asks through the control socket.
    enum Request: Equatable, Sendable, CaseIterable {
        case status
        /// `plugin-host wait`: answered once the host serves, no generation on its way in.
        case wait
        case follow
        case reload
        /// A new generation, with every plugin left out tried again.
        case restartLeftOut
        /// A new generation, plugins as they are.
        case restart
        /// A restart whose files on disk would leave a running plugin outside its versions.
        case restartBrokenOnDisk
        case stop
        /// `plugin-host accept`: every build on trial is permanent now.
        case accept
        /// `plugin-host rollback`: every build on trial is left out, the builds before come back.
        case rollback
        /// `plugin-host accept PLUGIN`, of a plugin on trial or not: only its trial ends.
        case acceptOne
        /// `plugin-host rollback PLUGIN`, of a plugin on trial or not: only its build is rolled back.
        case rollbackOne
        /// `plugin-host rollback PLUGIN --to VERSION`: most often a version kept permanent.
        case rollbackTo
    }

    /// Who a signal is sent to.
    enum Recipient: Equatable, Sendable, CaseIterable {
        /// The supervisor's process (`kill PID`).
        case supervisor
        /// The worker that speaks for the host, which passes it on.
        case worker
        /// The whole service (`kill -- -PGID`, `systemctl kill`, a terminal's ^C): the
        /// supervisor and the worker each get a copy of one request; a worker stopped by a
        /// signal passes its copy on only once it is resumed.
        case service
        /// `timeout(1)`: the supervisor, then the whole service a few milliseconds later: the
        /// supervisor's second copy is the same request, not a second one.
        case hostThenService
    }

    /// Time passes, in milliseconds.
    case advance(milliseconds: Int)
    /// Time passes to just past the supervisor's next deadline.
    case advanceToNextDeadline
    /// An operator sends a signal.
    case signal(Signal, to: Recipient)
    /// A worker ends.
    case kill(Target, Death)
    /// A worker crashes in the code of this plugin, if it runs it (otherwise in the code of
    /// the first plugin it runs).
    case crash(Target, inPlugin: Int)
    /// The build of this plugin that the speaking worker runs starts to behave as `build`
    /// says from its next start on (the data or the system it depends on changed): the
    /// same file, the same contents.
    case environmentBreaks(plugin: Int, build: Build)
    /// A worker stops making progress: its step runs past its limit, and it does not stop
    /// when asked.
    case hang(Target)
    /// SIGSTOP, then SIGCONT.
    case suspend(Target)
    case resume(Target)
    /// A worker's health check turns bad or good.
    case health(Target, good: Bool)
    /// The health check of this plugin, in the worker that serves, finds it unhealthy.
    case unhealthy(plugin: Int)
    /// A worker's plugin starts a process that calls `setsid` and lives on.
    case daemonize(Target)
    /// A plugin file is replaced (`mv`, `install`): a new file with another build.
    case replace(plugin: Int, with: Build)
    /// A plugin file is written in place (`cp` over it): the same file, other contents;
    /// workers running its code crash soon, in whatever code.
    case rewriteInPlace(plugin: Int, with: Build)
    /// A plugin file is removed.
    case remove(plugin: Int)
    /// The system refuses the next worker process.
    case refuseNextFork
    /// An operator's client connects and asks.
    case ask(Request)
    /// The client that connected first, of those still connected, hangs up.
    case clientLeaves
    /// SIGKILL of the supervisor: its workers end with it (their parent-death signal), and the
    /// service manager starts the host again, which reads the record it kept.
    case killSupervisor
    /// The record on disk is damaged (a disk that lost a write): the next start that reads it
    /// says so and ignores it.
    case tearRecord
    /// The state directory's file system is frozen for this long (`fsfreeze`): every write of
    /// the record under way, or begun meanwhile, finishes only once it thaws.
    case freezeState(seconds: Int)

    var description: String {
        switch self {
        case .advance(let milliseconds): ".advance(milliseconds: \(milliseconds))"
        case .advanceToNextDeadline: ".advanceToNextDeadline"
        case .signal(let signal, let recipient): ".signal(.\(signal.simulationName), to: .\(recipient))"
        case .kill(let target, let death): ".kill(.\(target), .\(death))"
        case .crash(let target, let plugin): ".crash(.\(target), inPlugin: \(plugin))"
        case .environmentBreaks(let plugin, let build): ".environmentBreaks(plugin: \(plugin), build: .\(build))"
        case .hang(let target): ".hang(.\(target))"
        case .suspend(let target): ".suspend(.\(target))"
        case .resume(let target): ".resume(.\(target))"
        case .health(let target, let good): ".health(.\(target), good: \(good))"
        case .unhealthy(let plugin): ".unhealthy(plugin: \(plugin))"
        case .daemonize(let target): ".daemonize(.\(target))"
        case .replace(let plugin, let build): ".replace(plugin: \(plugin), with: .\(build))"
        case .rewriteInPlace(let plugin, let build): ".rewriteInPlace(plugin: \(plugin), with: .\(build))"
        case .remove(let plugin): ".remove(plugin: \(plugin))"
        case .refuseNextFork: ".refuseNextFork"
        case .ask(let request): ".ask(.\(request))"
        case .clientLeaves: ".clientLeaves"
        case .killSupervisor: ".killSupervisor"
        case .tearRecord: ".tearRecord"
        case .freezeState(let seconds): ".freezeState(seconds: \(seconds))"
        }
    }
}

extension Signal {
    /// The static member that names it, as Swift source writes it.
    var simulationName: String {
        switch self {
        case .interrupt: "interrupt"
        case .terminate: "terminate"
        case .hangUp: "hangUp"
        default: "init(rawValue: \(rawValue))"
        }
    }
}
