import Foundation
import Testing

/// The real binary's lifecycle: services run until a signal, shutdown hooks run in reverse
/// bootstrap order within their deadline, SIGHUP reloads, a second signal ends the host.
@Suite("Lifecycle: run phase, shutdown, reload, signals")
struct LifecycleTests {
    /// Recording fixtures RecA <- RecB <- RecC and a Server requiring RecB, all logging to one file.
    private func recorders(_ settings: [String: String] = [:], server: Bool = true) throws -> (PluginDirectoryFixture, URL) {
        let directory = try PluginDirectoryFixture(fixtures: ["RecA", "RecB", "RecC"] + (server ? ["Server"] : []))
        let log = directory.root.appending(path: "events.log")
        let entries = ["RecA", "RecB", "RecC", "Server"].map { name in
            "\"\(name)\": {\"log\": \"\(log.path)\"\(settings[name].map { ", " + $0 } ?? "")}"
        }
        try directory.configure(entries.joined(separator: ", "))
        return (directory, log)
    }

    private func lines(of log: URL) -> [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits until the log holds `line`, for at most ten seconds.
    private func wait(for line: String, in log: URL) -> Bool {
        IntegrationTests.wait { lines(of: log).contains(line) }
    }

    private func start(_ directory: PluginDirectoryFixture, _ extra: [String] = []) throws -> RunningHost {
        try RunningHost(Repository.host.path, ["--dir", directory.plugins.path, "--config", directory.configuration.path, "--jobs", "1"] + extra)
    }

    @Test("SIGTERM and SIGINT: the service is cancelled, then every shutdown hook runs in reverse bootstrap order; exit 0",
          arguments: [SIGTERM, SIGINT])
    func stopSignal(signal: Int32) throws {
        let (directory, log) = try recorders()
        let host = try start(directory)
        #expect(wait(for: "Server run", in: log))
        let result = host.stop(with: signal)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(lines(of: log) == [
            "RecA bootstrap", "RecB bootstrap", "RecC bootstrap", "Server bootstrap", "Server run", "Server stopped",
            "Server shutdown", "RecC shutdown", "RecB shutdown", "RecA shutdown",
        ])
        #expect(result.standardError.contains("plugin-host: received \(signal == SIGTERM ? "SIGTERM" : "SIGINT"); shutting down"))
    }

    @Test("without services the host shuts down right after the chain and exits 0")
    func noServices() throws {
        let (directory, log) = try recorders(server: false)
        let result = try directory.runHost(["--jobs", "1"])
        #expect(result.status == 0)
        #expect(lines(of: log) == ["RecA bootstrap", "RecB bootstrap", "RecC bootstrap", "RecC shutdown", "RecB shutdown", "RecA shutdown"])
    }

    @Test("a failed bootstrap shuts down what did bootstrap, in reverse order")
    func failedBootstrapShutsDown() throws {
        let (directory, log) = try recorders(["RecC": #""bootstrapFails": true"#])
        let result = try directory.runHost(["--jobs", "1"])
        #expect(result.status == 1)
        #expect(lines(of: log) == ["RecA bootstrap", "RecB bootstrap", "RecB shutdown", "RecA shutdown"])
    }

    @Test("a shutdown hook that overruns --shutdown-timeout is named and skipped, and the others still run")
    func shutdownDeadline() throws {
        let (directory, log) = try recorders(["RecB": #""shutdownDelay": 5000"#], server: false)
        let clock = ContinuousClock()
        let start = clock.now
        let result = try directory.runHost(["--jobs", "1", "--shutdown-timeout", "0.3"])
        #expect(clock.now - start < .seconds(4))
        #expect(result.status == 1)
        #expect(result.standardError.contains(
            "plugin RecB (\(directory.plugins.path)/libRecB.so) did not shut down within 0.3 s (--shutdown-timeout); skipped"))
        #expect(lines(of: log) == ["RecA bootstrap", "RecB bootstrap", "RecC bootstrap", "RecC shutdown", "RecA shutdown"])
    }

    @Test("a service that ignores cancellation is named after --shutdown-timeout, and shutdown goes on")
    func serviceDeadline() throws {
        let (directory, log) = try recorders(["Server": #""ignoresCancellation": true"#])
        let host = try start(directory, ["--shutdown-timeout", "0.3"])
        #expect(wait(for: "Server run", in: log))
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 1)
        #expect(result.standardError.contains(
            "service Server (\(directory.plugins.path)/libServer.so) did not stop within 0.3 s of being cancelled (--shutdown-timeout); left behind"))
        #expect(lines(of: log).suffix(4) == ["Server shutdown", "RecC shutdown", "RecB shutdown", "RecA shutdown"])
    }

    @Test("a second signal ends the host at once, with 128 + the signal's number")
    func secondSignal() throws {
        let (directory, log) = try recorders(["RecA": #""shutdownDelay": 10000"#])
        let host = try start(directory, ["--shutdown-timeout", "30"])
        #expect(wait(for: "Server run", in: log))
        kill(host.processIdentifier, SIGTERM)
        let first = ContinuousClock.now
        #expect(wait(for: "RecB shutdown", in: log))
        // A second signal is deliberate once a second has passed since the first; a repeat
        // within it is the same request.
        pause(until: first + .milliseconds(1100))
        let clock = ContinuousClock()
        let start = clock.now
        let result = host.stop(with: SIGTERM)
        #expect(clock.now - start < .seconds(5))
        #expect(result.status == 143)
        #expect(!result.signalled)
        #expect(result.standardError.contains("plugin-host: received SIGTERM again; exiting at once without finishing the shutdown"))
        #expect(!lines(of: log).contains("RecA shutdown"))
    }

    @Test("a failing service stops the others and the host shuts down with exit 1")
    func failingService() throws {
        let (directory, log) = try recorders(["Server": #""failAfter": 100"#])
        let result = try directory.runHost(["--jobs", "1"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("service Server (\(directory.plugins.path)/libServer.so) failed: the server lost its socket"))
        #expect(lines(of: log).suffix(4) == ["Server shutdown", "RecC shutdown", "RecB shutdown", "RecA shutdown"])
    }

    /// Writes the recorders' settings again, with `extra` for each named plugin, and sends SIGHUP.
    private func reconfigure(_ directory: PluginDirectoryFixture, log: URL, _ extra: [String: String], host: RunningHost) throws {
        try directory.configure(["RecA", "RecB", "RecC", "Server"].map { name in
            #""\#(name)": {"log": "\#(log.path)"\#(extra[name].map { ", " + $0 } ?? "")}"#
        }.joined(separator: ", "))
        kill(host.processIdentifier, SIGHUP)
    }

    @Test("SIGHUP re-reads the configuration; every reloadable plugin checks it, then all apply it in bootstrap order")
    func reload() throws {
        let (directory, log) = try recorders()
        let host = try start(directory)
        #expect(wait(for: "Server run", in: log))
        try reconfigure(directory, log: log, ["RecA": #""marker": "2""#, "RecB": #""marker": "2""#, "RecC": #""marker": "2""#], host: host)
        #expect(wait(for: "RecC reload marker=2", in: log))
        #expect(host.isRunning)
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0)
        let reloads = lines(of: log).filter { $0.contains(" reload ") }
        #expect(reloads == ["RecA reload marker=2", "RecB reload marker=2", "RecC reload marker=2"])
        #expect(result.standardError.contains("plugin-host: reloaded RecA, RecB, RecC"))
    }

    @Test("one plugin refusing the new settings changes nothing anywhere, is named, and the host runs on")
    func reloadRefused() throws {
        let (directory, log) = try recorders()
        let host = try start(directory)
        #expect(wait(for: "Server run", in: log))
        try reconfigure(directory, log: log, ["RecA": #""marker": "2""#, "RecB": #""reloadFails": true"#, "RecC": #""marker": "2""#], host: host)
        let deadline = Date().addingTimeInterval(10)
        while !host.standardError.contains("reload refused by") && Date() < deadline { usleep(20_000) }
        #expect(host.isRunning)
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0)
        #expect(!lines(of: log).contains { $0.contains(" reload ") }, "no plugin applied the settings")
        #expect(result.standardError.contains(
            "plugin RecB (\(directory.plugins.path)/libRecB.so) refused the new settings: RecB refuses the new settings"))
        #expect(result.standardError.contains("plugin-host: reload refused by RecB; nothing was reloaded"))
    }

    @Test("a plugin that accepted the new settings but fails to apply them is named; the others apply theirs")
    func reloadApplyFails() throws {
        let (directory, log) = try recorders()
        let host = try start(directory)
        #expect(wait(for: "Server run", in: log))
        try reconfigure(directory, log: log, ["RecA": #""marker": "2""#, "RecB": #""applyFails": true"#, "RecC": #""marker": "2""#], host: host)
        #expect(wait(for: "RecC reload marker=2", in: log))
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0)
        #expect(result.standardError.contains(
            "plugin RecB (\(directory.plugins.path)/libRecB.so) accepted the new settings but failed to apply them: RecB could not apply the new settings"))
        #expect(result.standardError.contains("plugin-host: reloaded RecA, RecC"))
    }

    @Test("a configuration that no longer parses refuses the reload and keeps the host running")
    func reloadWithBrokenConfiguration() throws {
        let (directory, log) = try recorders()
        let host = try start(directory)
        #expect(wait(for: "Server run", in: log))
        try Data("{ broken".utf8).write(to: directory.configuration)
        kill(host.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(10)
        while !host.standardError.contains("reload refused:") && Date() < deadline { usleep(20_000) }
        #expect(host.isRunning)
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0)
        #expect(result.standardError.contains("reload refused: configuration file \(directory.configuration.path): not valid JSON"))
    }
}
