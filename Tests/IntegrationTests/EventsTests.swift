import Foundation
import Testing

/// Lifecycle events through the real binary: each is delivered to the components that
/// registered for it, in its order, and their answers are reduced by its rule.
@Suite("Events: readiness, health, drain")
struct EventsTests {
    /// Recording fixtures RecA <- RecB <- RecC, each running a service, all logging to one
    /// file, with `settings` added per plugin.
    private func recorders(_ settings: [String: String] = [:]) throws -> (PluginDirectoryFixture, EventLog) {
        let directory = try PluginDirectoryFixture(fixtures: ["RecA", "RecB", "RecC"])
        let log = EventLog(directory.root.appending(path: "events.log"))
        try directory.configure(["RecA", "RecB", "RecC"].map { name in
            "\"\(name)\": {\"log\": \"\(log.file.path)\", \"serve\": true\(settings[name].map { ", " + $0 } ?? "")}"
        }.joined(separator: ", "))
        return (directory, log)
    }

    private func start(_ directory: PluginDirectoryFixture, _ extra: [String] = [], environment: [String: String] = [:]) throws -> RunningHost {
        try RunningHost(
            Repository.host.path, ["--dir", directory.plugins.path, "--config", directory.configuration.path, "--jobs", "1"] + extra,
            environment: environment)
    }

    // MARK: Readiness

    @Test("readiness is asked dependencies first, after the services started; the host is ready when the last one answered")
    func readinessOrder() throws {
        let (directory, log) = try recorders([
            "RecA": #""readyDelay": 300"#, "RecB": #""readyDelay": 10"#, "RecC": #""readyDelay": 10"#,
        ])
        let listener = try NotifyListener()
        let host = try start(directory, environment: ["NOTIFY_SOCKET": listener.address])
        #expect(listener.nextSkippingPings() == "READY=1\nSTATUS=3 plugins running")
        let lines = log.lines
        #expect(lines.filter { $0.hasSuffix(" ready") } == ["RecA ready", "RecB ready", "RecC ready"])
        let serving = try #require(lines.firstIndex(of: "RecC serving"))
        #expect(serving < (try #require(lines.firstIndex(of: "RecA ready"))))
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
    }

    @Test("one component that fails to get ready stops the host: named, drained, shut down, exit 1")
    func readinessFailure() throws {
        let (directory, log) = try recorders(["RecB": #""readyDelay": 10, "readyFails": true, "drainDelay": 1"#])
        let host = try start(directory)
        let result = host.wait()
        #expect(result.status == 1)
        #expect(result.standardError.contains(
            "plugin-host: error: plugin RecB (\(directory.plugins.path)/libRecB.so) did not get ready: RecB could not bind its port; stopping"))
        #expect(log.lines.contains("RecB drained"))
        #expect(Array(log.lines.suffix(3)) == ["RecC shutdown", "RecB shutdown", "RecA shutdown"])
    }

    @Test("a component that takes longer than --timeout to get ready is named and the host stops")
    func readinessTimeout() throws {
        let (directory, _) = try recorders(["RecC": #""readyDelay": 5000"#])
        let host = try start(directory, ["--timeout", "0.3"])
        let result = host.wait()
        #expect(result.status == 1)
        #expect(result.standardError.contains(
            "plugin RecC (\(directory.plugins.path)/libRecC.so) did not get ready within 0.3 s (--timeout); stopping"))
        #expect(host.elapsed < .seconds(4))
    }

    // MARK: Health

    @Test("health: the worst answer wins, each component that is not healthy is named with its reason, and recovery is said")
    func healthReduction() throws {
        let directory = try PluginDirectoryFixture(fixtures: ["RecA", "RecB", "RecC"])
        let health = ["RecA", "RecB", "RecC"].map { directory.root.appending(path: "\($0).health") }
        for file in health { try Data("healthy\n".utf8).write(to: file, options: .atomic) }
        try directory.configure(zip(["RecA", "RecB", "RecC"], health).map { name, file in
            "\"\(name)\": {\"serve\": true, \"health\": \"\(file.path)\"}"
        }.joined(separator: ", "))
        let listener = try NotifyListener()
        let host = try start(directory, ["--health-interval", "0.05"], environment: ["NOTIFY_SOCKET": listener.address])
        #expect(listener.nextSkippingPings() == "READY=1\nSTATUS=3 plugins running")

        try Data("unhealthy: lost its database\n".utf8).write(to: health[1], options: .atomic)
        try Data("degraded: disk 91% full\n".utf8).write(to: health[2], options: .atomic)
        let worst = "STATUS=3 plugins running; unhealthy: RecB (lost its database), RecC (disk 91% full)"
        #expect(listener.wait(for: worst))
        try Data("healthy\n".utf8).write(to: health[1], options: .atomic)
        try Data("healthy\n".utf8).write(to: health[2], options: .atomic)
        #expect(wait(until: { host.standardError.contains("health: every plugin is healthy again") }))
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")

        let plugins = directory.plugins.path
        let lines = result.standardError.split(separator: "\n").filter { $0.hasPrefix("plugin-host: health: ") }
        // What the checks saw as the files changed; the last two lines are fixed.
        #expect(lines.contains(
            "plugin-host: health: plugin RecB (\(plugins)/libRecB.so) is unhealthy: lost its database; "
                + "plugin RecC (\(plugins)/libRecC.so) is degraded: disk 91% full"))
        #expect(lines.last == "plugin-host: health: every plugin is healthy again")
    }

    @Test("a health check that throws or does not answer counts as unhealthy, with why")
    func healthCheckFailure() throws {
        let directory = try PluginDirectoryFixture(fixtures: ["RecA"])
        try directory.configure(#""RecA": {"serve": true, "health": "\#(directory.root.appending(path: "missing").path)"}"#)
        let host = try start(directory, ["--health-interval", "0.05"])
        #expect(wait(until: { host.standardError.contains("health: plugin RecA") }))
        let result = host.stop(with: SIGTERM)
        #expect(result.standardError.contains(
            "plugin-host: health: plugin RecA (\(directory.plugins.path)/libRecA.so) is unhealthy: cannot read "))
    }

    // MARK: Draining

    @Test("stop in two steps: every component drains, dependents first, before any service is cancelled; then shutdown")
    func drainOrder() throws {
        let (directory, log) = try recorders([
            "RecA": #""drainDelay": 1"#, "RecB": #""drainDelay": 1"#, "RecC": #""drainDelay": 1"#,
        ])
        let host = try start(directory)
        #expect(log.wait(for: "RecC serving"))
        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = log.lines
        let drains = lines.filter { $0.hasSuffix("draining") || $0.hasSuffix("drained") }
        #expect(drains == ["RecC draining", "RecC drained", "RecB draining", "RecB drained", "RecA draining", "RecA drained"])
        let lastDrain = try #require(lines.firstIndex(of: "RecA drained"))
        #expect(lines.indices.filter { lines[$0].hasSuffix(" stopped") }.allSatisfy { $0 > lastDrain })
        #expect(Array(lines.suffix(3)) == ["RecC shutdown", "RecB shutdown", "RecA shutdown"])
    }

    @Test("a drain that overruns --shutdown-timeout is named and skipped; the others still drain and the host stops")
    func drainDeadline() throws {
        let (directory, log) = try recorders([
            "RecA": #""drainDelay": 1"#, "RecB": #""drainDelay": 5000"#, "RecC": #""drainDelay": 1"#,
        ])
        let host = try start(directory, ["--shutdown-timeout", "0.3"])
        #expect(log.wait(for: "RecC serving"))
        let result = host.stop(with: SIGTERM)
        #expect(host.elapsed < .seconds(5))
        #expect(result.status == 1)
        #expect(result.standardError.contains(
            "plugin RecB (\(directory.plugins.path)/libRecB.so) did not finish draining within 0.3 s (--shutdown-timeout); skipped"))
        #expect(log.lines.contains("RecA drained"))
        #expect(log.lines.contains("RecA shutdown"))
    }
}

/// The file recording fixtures write what happens to them into, one line per event.
struct EventLog {
    let file: URL

    init(_ file: URL) { self.file = file }

    var lines: [String] {
        ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits until the log holds `line` `count` times (at least), for at most ten seconds.
    func wait(for line: String, count: Int = 1) -> Bool {
        IntegrationTests.wait { lines.filter { $0 == line }.count >= count }
    }
}
