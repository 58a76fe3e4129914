import Foundation
import Testing

/// Whatever a buggy plugin does to the process, the host ends within its deadline plus a
/// small margin, never by a signal, never with status 0 unless every plugin succeeded; it
/// names the plugin and the phase; the store stays where the operator's paths say, intact;
/// and nothing the host started is left running. The plugin is the Misbehaver fixture,
/// told what to do, when and on which thread by its settings.
@Suite("Containment: what a misbehaving plugin does to the process")
struct ContainmentTests {
    // MARK: Ending the process

    @Test("exit(0) from any thread, in any phase, is named and ends the host with 70",
          arguments: [("bootstrap", "inline"), ("bootstrap", "thread"), ("bootstrap", "task"), ("run", "thread"),
                      ("shutdown", "inline"), ("shutdown", "thread")])
    func exitCall(phase: String, on thread: String) throws {
        let trial = try Trial(["Misbehaver": #""act": "exit", "phase": "\#(phase)", "on": "\#(thread)""#])
        let (result, elapsed) = try trial.run()
        trial.expectContained(result, status: 70, line: "\(trial.culprit("Misbehaver")) called exit(0) during \(Trial.phaseText(phase))")
        #expect(elapsed < .seconds(8))
    }

    @Test("_exit(0), which no handler sees, is named from what was running and ends the host with 70",
          arguments: ["bootstrap", "run", "shutdown"])
    func underscoreExit(phase: String) throws {
        let trial = try Trial(["Misbehaver": #""act": "_exit", "phase": "\#(phase)""#])
        let (result, _) = try trial.run(["--jobs", "1"])
        trial.expectContained(
            result, status: 70, line: "\(trial.culprit("Misbehaver")) ended the process with status 0 during \(Trial.phaseText(phase))")
    }

    @Test("_exit(0) while two plugins bootstrap at once: both are named, as the one whose code may have called it")
    func underscoreExitAmongSeveral() throws {
        let trial = try Trial([
            "MisA": #""act": "_exit", "on": "thread", "delay": 300"#,
            "MisB": #""act": "hang""#,
        ])
        let (result, elapsed) = try trial.run(["--jobs", "2"])
        trial.expectContained(
            result, status: 70,
            line: "while \(trial.culprit("MisA")) was bootstrapping and \(trial.culprit("MisB")) was bootstrapping")
        #expect(elapsed < .seconds(8))
    }

    @Test("SIGKILL, sent by plugin code to its own process, ends the host with 70 naming the plugin")
    func killedBySignal() throws {
        let trial = try Trial(["Misbehaver": #""act": "kill-self""#])
        let (result, _) = try trial.run(["--jobs", "1"])
        trial.expectContained(result, status: 70, line: "\(trial.culprit("Misbehaver")) was running when the process was ended by SIGKILL during bootstrap")
    }

    // MARK: Stalls

    @Test("a plugin that holds standard output's lock and blocks: --timeout still fires, and the host ends with 124")
    func holdsStandardOutput() throws {
        let trial = try Trial(["Misbehaver": #""act": "hold-stdout""#])
        let (result, elapsed) = try trial.run(["--timeout", "0.5"])
        trial.expectContained(result, status: 124, line: "\(trial.culprit("Misbehaver")) timed out during bootstrap: still running after 0.5 s (--timeout)")
        #expect(elapsed < .seconds(3))
    }

    @Test("output piped into a consumer that stops reading: --timeout still fires, and a second SIGTERM ends the host at once")
    func consumerStopsReading() throws {
        let trial = try Trial(["Misbehaver": #""act": "flood""#])
        let clock = ContinuousClock()
        let timedOut = try trial.start(["--timeout", "1"], unreadOutput: true)
        let start = clock.now
        let first = timedOut.wait()
        #expect(clock.now - start < .seconds(4))
        trial.expectContained(first, status: 124, line: "\(trial.culprit("Misbehaver")) timed out during bootstrap")

        let signalled = try trial.start(["--timeout", "60"], unreadOutput: true)
        // The log holds the first host's lines too: wait for the second bootstrap.
        #expect(trial.waitUntil { trial.lines.filter { $0 == "bootstrap Misbehaver" }.count == 2 }, "the plugin never bootstrapped")
        signalled.send(SIGTERM)
        let firstSignal = clock.now
        #expect(trial.waitUntil { signalled.standardError.contains("received SIGTERM; shutting down") }, "the first SIGTERM was not heard")
        // A second signal is deliberate once a second has passed since the first.
        pause(until: firstSignal + .milliseconds(1100))
        let again = clock.now
        let second = signalled.stop(with: SIGTERM)
        #expect(clock.now - again < .seconds(3))
        trial.expectContained(second, status: 143, line: "plugin-host: received SIGTERM again; exiting at once without finishing the shutdown")
    }

    @Test("two shutdown hooks that block, one asleep and one spinning: each is named and skipped; the host ends in time with 1")
    func twoBlockingShutdownHooks() throws {
        let trial = try Trial([
            "MisA": #""act": "hang", "phase": "shutdown""#,
            "MisB": #""act": "spin", "phase": "shutdown""#,
        ])
        let (result, elapsed) = try trial.run(["--shutdown-timeout", "0.5"])
        trial.expectContained(result, status: 1, line: "plugin-host: error: \(trial.culprit("MisA")) did not shut down within 0.5 s (--shutdown-timeout); skipped")
        #expect(result.standardError.contains("\(trial.culprit("MisB")) did not shut down within 0.5 s"))
        #expect(trial.lines.filter { $0 == "shutdown" }.count == 2, "the second hook began after the first was skipped")
        #expect(elapsed < .seconds(4))
    }

    @Test("two services that ignore cancellation and block their threads: both are named after --shutdown-timeout, and the host ends with 1")
    func twoBlockingServices() throws {
        let trial = try Trial([
            "MisA": #""act": "hang", "phase": "run""#,
            "MisB": #""act": "spin", "phase": "run""#,
        ])
        let host = try trial.start(["--shutdown-timeout", "0.5"])
        #expect(trial.waitUntil { trial.lines.filter { $0 == "run" }.count == 2 }, "the services never started")
        let clock = ContinuousClock()
        let start = clock.now
        let result = host.stop(with: SIGTERM)
        #expect(clock.now - start < .seconds(4))
        trial.expectContained(result, status: 1, line: "plugin-host: error: service \(trial.label("MisA")) did not stop within 0.5 s of being cancelled")
        #expect(result.standardError.contains("service \(trial.label("MisB")) did not stop within 0.5 s"))
    }

    @Test("an atexit handler that never returns is named, and the host ends with 124 after --shutdown-timeout (at least 1 s)")
    func hangsInExit() throws {
        let trial = try Trial(["Misbehaver": #""act": "hang", "phase": "exit""#])
        let (result, elapsed) = try trial.run(["--shutdown-timeout", "0.5"])
        trial.expectContained(result, status: 124, line: "plugin-host did not finish its exit within 1 s: the host's own thread is stuck in code of plugin Misbehaver")
        #expect(elapsed < .seconds(4))
    }

    @Test("a plugin that stops its own process (SIGSTOP) is named when its deadline passes")
    func stopsItself() throws {
        let trial = try Trial(["Misbehaver": #""act": "stop-self""#])
        let (result, elapsed) = try trial.run(["--timeout", "0.5"])
        trial.expectContained(result, status: 124, line: "\(trial.culprit("Misbehaver")) timed out during bootstrap")
        #expect(elapsed < .seconds(3))
    }

    // MARK: Signal handling that plugin code changed

    @Test("a crash after plugin code replaced the crash handler, ignored SIGSEGV or blocked it is still named, with 70",
          arguments: ["reraise-segfault", "ignore-segfault", "blocked-segfault"])
    func crashHandlerReplaced(act: String) throws {
        let trial = try Trial(["Misbehaver": #""act": "\#(act)""#])
        let (result, _) = try trial.run(["--jobs", "1"])
        trial.expectContained(result, status: 70, line: "\(trial.culprit("Misbehaver")) was running when the process was ended by SIGSEGV during bootstrap")
    }

    @Test("signals blocked by plugin code on a host thread are unblocked before the next plugin runs there: its crash is recorded",
          arguments: ["bootstrap", "shutdown"], ["1", "2"])
    func blockedSignalsOnHostThread(phase: String, jobs: String) throws {
        let trial = try Trial(
            ["MisA": #""act": "block-signals", "phase": "\#(phase)""#, "MisB": #""act": "segfault", "phase": "\#(phase)""#],
            requires: phase == "bootstrap" ? ["MisB": ["MisA"]] : ["MisA": ["MisB"]])
        let (result, _) = try trial.run(["--jobs", jobs])
        trial.expectContained(result, status: 70, line: "\(trial.culprit("MisB")) crashed during \(phase): SIGSEGV")
        #expect(!result.standardError.contains(trial.culprit("MisA")))
    }

    @Test("writing to a closed pipe gives the plugin EPIPE instead of ending the host")
    func brokenPipe() throws {
        let trial = try Trial(["Misbehaver": #""act": "sigpipe""#])
        let (result, _) = try trial.run()
        trial.expectContained(result, status: 0)
        #expect(trial.lines.contains("epipe"))
    }

    @Test("an alarm() nobody handles, and a stray SIGUSR1, do not end the host")
    func strayTimersAndSignals() throws {
        let trial = try Trial(["MisA": #""act": "alarm", "serve": true"#, "MisB": #""act": "stray-signal""#])
        let host = try trial.start()
        #expect(trial.waitUntil { trial.lines.contains("run") }, "the service never started")
        // alarm(1) was armed while bootstrapping; the plugin says when it has gone off.
        #expect(trial.waitUntil { trial.lines.contains("alarm went off") }, "the alarm ended the host")
        let result = host.stop(with: SIGTERM)
        trial.expectContained(result, status: 0)
    }

    @Test("SIGTERM that plugin code sends to its own process stops the host gracefully, like one sent to the host")
    func signalsItsOwnProcess() throws {
        let trial = try Trial(["Misbehaver": #""act": "term-self", "phase": "run", "serve": true"#])
        let (result, elapsed) = try trial.run()
        trial.expectContained(result, status: 0, line: "plugin-host: received SIGTERM; shutting down")
        #expect(trial.lines.contains("stopped"), "the service was cancelled")
        #expect(elapsed < .seconds(5))
    }

    // MARK: Crashes anywhere

    @Test("a crash on any thread, in any phase, names the plugin whose code crashed, with 70",
          arguments: [("bootstrap", "thread"), ("bootstrap", "task"), ("run", "thread"), ("run", "task"),
                      ("shutdown", "inline"), ("shutdown", "task"), ("exit", "inline")])
    func crashAnywhere(phase: String, on thread: String) throws {
        let trial = try Trial(["Misbehaver": #""act": "segfault", "phase": "\#(phase)", "on": "\#(thread)", "serve": false"#])
        let (result, elapsed) = try trial.run()
        trial.expectContained(result, status: 70, line: "\(trial.culprit("Misbehaver")) crashed during \(Trial.phaseText(phase)): SIGSEGV")
        #expect(elapsed < .seconds(8))
    }

    @Test("a crash while loading, in an ELF constructor or the entry point, names the plugin", arguments: ["constructor", "load"])
    func crashWhileLoading(phase: String) throws {
        let trial = try Trial(["Misbehaver": ""])
        let (result, _) = try trial.run(environment: ["MISBEHAVER_ACT": "trap", "MISBEHAVER_PHASE": phase])
        trial.expectContained(result, status: 70, line: "\(trial.culprit("Misbehaver")) crashed during load: SIG")
    }

    @Test("a crash or exit while a plugin loads after others names it, not one loaded before it",
          arguments: [("segfault", "constructor"), ("trap", "constructor"), ("abort", "constructor"), ("exit", "constructor"),
                      ("segfault", "load")], ["1", "2"])
    func crashWhileLoadingAfterOthers(act: (String, String), jobs: String) throws {
        let trial = try Trial(["Zcrash": ""], requires: ["Zcrash": ["Application"]])
        let (result, _) = try trial.run(["--jobs", jobs], environment: ["MISBEHAVER_ACT": act.0, "MISBEHAVER_PHASE": act.1])
        let what = act.0 == "exit" ? "called exit(0) during load" : "crashed during load: SIG"
        trial.expectContained(result, status: 70, line: "\(trial.culprit("Zcrash")) \(what)")
    }

    @Test("a worker stopped while its services run (a plugin stopping its own process, or SIGSTOP from outside) is named at once, and ended at --timeout",
          arguments: ["stop-self", "SIGSTOP"])
    func stoppedWhileServing(how: String) throws {
        let trial = try Trial(["Misbehaver": how == "stop-self" ? #""act": "stop-self", "phase": "run", "serve": true"# : #""serve": true"#])
        // Without restarts: what is named, and the status (a restart heals it otherwise).
        let host = try trial.start(["--timeout", "1", "--restart=no"])
        #expect(trial.waitUntil { trial.lines.contains("run") }, "the service never started")
        if how == "SIGSTOP" { kill(try #require(trial.processes.first), SIGSTOP) }
        #expect(wait(until: { host.standardError.contains("was stopped by SIGSTOP") }), "\(host.standardError)")
        let result = host.wait()
        #expect(result.status == 124, "\(result.standardError)")
        #expect(result.standardError.contains("plugin-host: error: the worker process stayed stopped by SIGSTOP for 1 s (--timeout) while "))
        if how == "stop-self" { #expect(result.standardError.contains("while plugin \(trial.label("Misbehaver")) ran")) }
    }

    @Test("a crash in a reload hook names the plugin and the phase")
    func crashInReload() throws {
        let trial = try Trial(["Misbehaver": #""act": "segfault", "phase": "reload", "serve": true"#])
        let host = try trial.start()
        #expect(trial.waitUntil { trial.lines.contains("run") }, "the service never started")
        host.send(SIGHUP)
        let result = host.wait()
        trial.expectContained(result, status: 70, line: "\(trial.culprit("Misbehaver")) crashed during reload: SIGSEGV")
    }

    // MARK: Process state that plugin code changed

    @Test("a plugin that closes descriptors 1 and 2: the report still reaches standard output, and no file receives it")
    func closesStandardStreams() throws {
        let trial = try Trial(["Misbehaver": #""act": "close-stdio""#])
        let (result, _) = try trial.run(["--jobs", "1"])
        trial.expectContained(result, status: 0)
        #expect(result.standardOutput.contains("Bootstrapped 4 plugins from"))
        #expect(result.standardError.contains("plugin-host: warning: plugin code closed descriptors 1, 2"))
    }

    @Test("a plugin that closes every descriptor: the store refuses to write without its lock, and stays as it was")
    func closesEveryDescriptor() throws {
        // Hammer peels a banana after Misbehaver, which runs after Persistence opened the store.
        let trial = try Trial(["Misbehaver": #""act": "none""#], requires: ["Misbehaver": ["Persistence"]], demo: ["Persistence", "Domain"])
        try trial.directory.add(fixture: "Hammer", as: "Hammer", requires: ["Domain", "Misbehaver"])
        #expect(try trial.run().result.status == 0)
        let before = try Data(contentsOf: trial.store)
        try trial.configure(["Misbehaver": #""act": "close-all""#])
        let (result, _) = try trial.run(["--jobs", "1"])
        trial.expectContained(result, status: 1, line: "failed to bootstrap: banana store \(trial.store.path) is no longer locked for this process")
        #expect(try Data(contentsOf: trial.store) == before)
    }

    @Test("a plugin that changes the working directory moves neither the store nor the timeline")
    func changesWorkingDirectory() throws {
        let trial = try Trial(["Misbehaver": #""act": "chdir""#])
        // Relative paths everywhere: the store relative to the configuration file, the rest
        // to the directory the host started in.
        let settings = #"{"plugins": {"Persistence": {"dataDirectory": "data"}, "Misbehaver": {"act": "chdir"}}}"#
        try Data(settings.utf8).write(to: trial.directory.configuration)
        let result = try Command.run(
            Repository.host.path, ["--dir", "plugins", "--config", "config.json", "--timeline", "boot.svg", "--jobs", "1"],
            in: trial.directory.root)
        trial.expectContained(result, status: 0)
        #expect(FileManager.default.fileExists(atPath: trial.store.path))
        #expect(FileManager.default.fileExists(atPath: trial.directory.root.appending(path: "boot.svg").path))
    }

    @Test("a plugin whose ELF constructor changes the working directory does not keep the next plugin from loading")
    func changesWorkingDirectoryWhileLoading() throws {
        let trial = try Trial(["Misbehaver": ""])
        let result = try Command.run(
            Repository.host.path, ["--dir", "plugins", "--config", "config.json", "--jobs", "1"],
            environment: ["MISBEHAVER_ACT": "chdir", "MISBEHAVER_PHASE": "constructor"], in: trial.directory.root)
        trial.expectContained(result, status: 0)
        #expect(FileManager.default.fileExists(atPath: trial.store.path))
    }

    @Test("a plugin that changes HOME and XDG_DATA_HOME does not move the store Persistence finds by default")
    func changesEnvironment() throws {
        let trial = try Trial(["Misbehaver": #""act": "setenv""#])
        let home = trial.directory.root.appending(path: "home")
        // No dataDirectory: Persistence finds its store from HOME.
        try Data(#"{"plugins": {"Misbehaver": {"act": "setenv", "log": "\#(trial.log.path)"}}}"#.utf8).write(to: trial.directory.configuration)
        let (result, _) = try trial.run(["--jobs", "1"], environment: ["HOME": home.path, "XDG_DATA_HOME": ""])
        trial.expectContained(result, status: 0)
        #expect(FileManager.default.fileExists(atPath: home.appending(path: ".local/share/plugin-host/bananas.json").path))
    }

    @Test("a fork() whose child returns into the host: the child ends there, the report is printed once, the store lock stays the host's")
    func forksACopy() throws {
        let trial = try Trial(["Misbehaver": #""act": "fork""#])
        let (result, _) = try trial.run(["--jobs", "1"])
        trial.expectContained(result, status: 0)
        #expect(result.standardOutput.components(separatedBy: "Bootstrapped 4 plugins").count == 2)
        #expect(trial.lines.filter { $0.hasPrefix("child ") }.count == 1)
    }

    @Test("processes plugins start and leave running are ended with the host, and named")
    func leavesProcessesRunning() throws {
        let trial = try Trial(["Misbehaver": #""act": "fork-orphan""#])
        let (result, _) = try trial.run()
        trial.expectContained(result, status: 0, line: "plugin-host: note: ended 1 process that plugins started and left running")
    }

    @Test("a plugin thread that keeps starting processes while the host exits leaves none of them running")
    func forksWhileExiting() throws {
        // The bootstrap waits a moment, so that the loop has begun to fork when the host
        // goes on to exit; it forks on while the host exits.
        let trial = try Trial(["Misbehaver": #""act": "fork-loop", "on": "thread", "wait": 50"#])
        for _ in 0..<3 {
            let (result, _) = try trial.run()
            trial.expectContained(result, status: 0, line: "that plugins started and left running")
        }
    }

    // MARK: The worker process

    @Test("the worker's forked thread runs nothing after the fork: it sleeps with every signal blocked")
    func forkedThreadParks() throws {
        // The Swift runtime caches each thread's id; in a forked child the first thread keeps
        // its parent's, and a runtime lock it held would spin every other thread for ever.
        let trial = try Trial(["Misbehaver": #""serve": true"#])
        let (host, worker) = try trial.startServing()
        defer { _ = host.stop(with: SIGTERM) }
        let status = try String(contentsOfFile: "/proc/\(worker)/task/\(worker)/status", encoding: .utf8)
        let field = { (name: String) in status.split(separator: "\n").first { $0.hasPrefix(name + ":") }?.split(separator: "\t").last }
        #expect(field("State")?.hasPrefix("S") == true, "\(status)")
        let blocked = try #require(field("SigBlk").flatMap { UInt64($0, radix: 16) })
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGABRT, SIGUSR1, SIGALRM, SIGPIPE] {
            #expect(blocked & (1 << UInt64(signal - 1)) != 0, "signal \(signal) is not blocked: \(status)")
        }
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(worker)/task")
        #expect(threads.count > 1, "the worker runs on other threads")
    }

    // MARK: Components and stores

    @Test("a generic component class defined in the plugin is the plugin's own")
    func genericComponent() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Generic"])
        let result = try directory.runHost()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("Generic: a Box holding 42"))
    }

    @Test("a second host on a store in use always names the process that holds it")
    func secondHostNamesTheHolder() throws {
        let trial = try Trial(["Misbehaver": #""serve": true"#])
        let (first, holder) = try trial.startServing()
        defer { _ = first.stop(with: SIGTERM) }
        for round in 0..<20 {
            let second = try trial.directory.runHost(["--jobs", "1"])
            #expect(second.status == 1, "round \(round)")
            #expect(second.standardError.contains("banana store \(trial.store.path) is in use by process \(holder);"), "round \(round): \(second.standardError)")
        }
    }

    @Test("hundreds of shutdown hooks that finish right at their deadline: each finishes or is skipped, and the host ends normally")
    func shutdownDeadlineRace() throws {
        let directory = try PluginDirectoryFixture()
        var settings: [String] = []
        for index in 0..<300 {
            let name = "Hook\(index)"
            try directory.add(fixture: "RecA", as: name)
            settings.append(#""\#(name)": {"shutdownDelay": 1}"#)
        }
        try Data(#"{"plugins": {\#(settings.joined(separator: ", "))}}"#.utf8).write(to: directory.configuration)
        let clock = ContinuousClock()
        let start = clock.now
        let result = try directory.runHost(["--shutdown-timeout", "0.001"])
        #expect(!result.signalled)
        #expect(result.status == 0 || result.status == 1, "\(result.standardError.suffix(2000))")
        let skipped = result.standardError.components(separatedBy: "did not shut down within 0.001 s").count - 1
        let others = result.standardError.split(separator: "\n").filter { !$0.contains("did not shut down within 0.001 s") }
        #expect(others.isEmpty, "\(others.prefix(5))")
        #expect(result.status == (skipped > 0 ? 1 : 0))
        #expect(clock.now - start < .seconds(30))
    }
}

/// One run of the real host: the demo plugins and Misbehaver fixtures, each told what to do
/// by its settings and logging to one file.
private struct Trial {
    let directory: PluginDirectoryFixture
    let log: URL

    /// - Parameters:
    ///   - misbehavers: Plugin names, each with the body of its settings object.
    ///   - requires: What each misbehaver requires.
    ///   - demo: The demo plugins to install.
    init(_ misbehavers: [String: String], requires: [String: [String]] = [:],
         demo: [String] = ["Persistence", "Domain", "Application"]) throws {
        directory = try PluginDirectoryFixture(demo: demo)
        log = directory.root.appending(path: "misbehaver.log")
        for name in misbehavers.keys.sorted() {
            try directory.add(fixture: "Misbehaver", as: name, requires: requires[name] ?? [])
        }
        try configure(misbehavers)
    }

    /// Writes the settings of the misbehavers.
    func configure(_ misbehavers: [String: String]) throws {
        try directory.configure(misbehavers.keys.sorted().map { name in
            let settings = misbehavers[name]!
            return #""\#(name)": {"log": "\#(log.path)"\#(settings.isEmpty ? "" : ", " + settings)}"#
        }.joined(separator: ", "))
    }

    var store: URL { directory.data.appending(path: "bananas.json") }

    /// `NAME (FILE)`, as the host names a plugin of this directory.
    func label(_ name: String) -> String {
        "\(name) (\(directory.plugins.path)/lib\(name).so)"
    }

    /// `plugin NAME (FILE)`, as the host names a plugin of this directory.
    func culprit(_ name: String) -> String {
        "plugin \(label(name))"
    }

    /// How the host names a phase in its reports.
    static func phaseText(_ phase: String) -> String {
        phase == "run" ? "the run phase" : phase
    }

    func run(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> (result: CommandResult, elapsed: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try directory.runHost(arguments, environment: environment)
        return (result, clock.now - start)
    }

    func start(_ arguments: [String] = [], unreadOutput: Bool = false) throws -> RunningHost {
        try RunningHost(
            Repository.host.path, ["--dir", directory.plugins.path, "--config", directory.configuration.path] + arguments,
            unreadOutput: unreadOutput)
    }

    /// Starts the host and waits until the misbehaver's service runs.
    ///
    /// - Returns: The host, and its worker process.
    func startServing() throws -> (host: RunningHost, worker: Int32) {
        let host = try start()
        #expect(waitUntil { lines.contains("run") }, "the service never started")
        return (host, try #require(processes.first))
    }

    /// Waits until `condition` holds, for at most ten seconds; whether it did.
    func waitUntil(_ condition: () -> Bool) -> Bool {
        IntegrationTests.wait(until: condition)
    }

    /// The lines the misbehavers logged.
    var lines: [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The worker processes and the children the misbehavers logged.
    var processes: [Int32] {
        lines.compactMap { line in
            guard line.hasPrefix("pid ") || line.hasPrefix("child ") else { return nil }
            return Int32(line.split(separator: " ")[1])
        }
    }

    /// The host ended with `status`, not by a signal, saying `line` (or mentioning
    /// `mentions`) on standard error; nothing it started is left running; the store is
    /// intact.
    func expectContained(
        _ result: CommandResult, status: Int32, line: String? = nil, mentions: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!result.signalled, "the host died by signal \(result.status)", sourceLocation: sourceLocation)
        #expect(result.status == status, "stderr: \(result.standardError.suffix(1500))", sourceLocation: sourceLocation)
        if let line {
            #expect(result.standardError.contains(line), "stderr: \(result.standardError.suffix(1500))", sourceLocation: sourceLocation)
        }
        if let mentions {
            #expect(result.standardError.contains(mentions), "stderr: \(result.standardError.suffix(1500))", sourceLocation: sourceLocation)
        }
        expectNothingLeftRunning(sourceLocation: sourceLocation)
        expectStoreIntact(sourceLocation: sourceLocation)
    }

    func expectNothingLeftRunning(sourceLocation: SourceLocation = #_sourceLocation) {
        // The supervisor reaps and kills before it exits; a moment for /proc to catch up.
        var alive: [Int32] = []
        for _ in 0..<50 {
            alive = processes.filter(HostProcesses.isAlive)
                + processes.flatMap(HostProcesses.members(ofGroup:))
            if alive.isEmpty { return }
            usleep(20_000)
        }
        Issue.record("left running: \(alive)", sourceLocation: sourceLocation)
    }

    func expectStoreIntact(sourceLocation: SourceLocation = #_sourceLocation) {
        let data = directory.data
        // bananas.json.tmp may be left by a write the crash interrupted; the store is then
        // as it was before that write, and the next run removes it.
        let files = Set((try? FileManager.default.contentsOfDirectory(atPath: data.path)) ?? [])
        #expect(files.isSubset(of: ["bananas.json", "bananas.lock", "bananas.json.tmp"]), "\(files)", sourceLocation: sourceLocation)
        if let contents = try? Data(contentsOf: store) {
            let object = (try? JSONSerialization.jsonObject(with: contents)) as? [String: Any]
            #expect(object?["format"] as? Int == 1, "the store is damaged: \(String(decoding: contents, as: UTF8.self))",
                    sourceLocation: sourceLocation)
        }
        if let lock = try? String(contentsOf: data.appending(path: "bananas.lock"), encoding: .utf8) {
            #expect(lock.allSatisfy { $0.isNumber || $0 == "\n" }, "the lock file holds more than a process id: \(lock.prefix(200))",
                    sourceLocation: sourceLocation)
        }
    }
}
