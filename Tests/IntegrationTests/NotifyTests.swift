import Foundation
import Testing

/// systemd's notification protocol, against a real datagram socket listening as systemd does.
@Suite("systemd: notifications and the watchdog")
struct NotifyTests {
    private func recorder(_ settings: String = "") throws -> (PluginDirectoryFixture, EventLog) {
        let directory = try PluginDirectoryFixture(fixtures: ["RecA"])
        let log = EventLog(directory.root.appending(path: "events.log"))
        try directory.configure(#""RecA": {"log": "\#(log.file.path)", "serve": true\#(settings)}"#)
        return (directory, log)
    }

    private func start(_ directory: PluginDirectoryFixture, _ extra: [String] = [], environment: [String: String]) throws -> RunningHost {
        try RunningHost(
            Repository.host.path, ["--dir", directory.plugins.path, "--config", directory.configuration.path] + extra, environment: environment)
    }

    private static var monotonicMicroseconds: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    @Test("READY=1 at readiness, RELOADING=1 with MONOTONIC_USEC then READY=1 around a reload, STOPPING=1 at stop, nothing else")
    func messageSequence() throws {
        let (directory, log) = try recorder()
        let listener = try NotifyListener()
        let host = try start(directory, environment: ["NOTIFY_SOCKET": listener.address])
        #expect(listener.next() == "READY=1\nSTATUS=1 plugin running")
        // Its service started before READY=1; its task runs on its own, so its first line
        // may come just after.
        #expect(log.wait(for: "RecA serving"))

        let before = Self.monotonicMicroseconds
        host.send(SIGHUP)
        let reloading = listener.next()?.split(separator: "\n").map(String.init) ?? []
        let after = Self.monotonicMicroseconds
        #expect(reloading.first == "RELOADING=1")
        let stamp = reloading.count == 2 && reloading[1].hasPrefix("MONOTONIC_USEC=") ? Int64(reloading[1].dropFirst(15)) : nil
        #expect(stamp.map { (before...after).contains($0) } == true, "\(reloading)")
        #expect(listener.next() == "READY=1\nSTATUS=1 plugin running")

        let result = host.stop(with: SIGTERM)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(listener.messages(during: .milliseconds(300)) == ["STOPPING=1\nSTATUS=Stopping (received SIGTERM)"])
    }

    @Test("an abstract socket name (@name) is reached too")
    func abstractSocket() throws {
        let (directory, _) = try recorder()
        let listener = try NotifyListener(abstract: true)
        let host = try start(directory, environment: ["NOTIFY_SOCKET": listener.address])
        #expect(listener.next() == "READY=1\nSTATUS=1 plugin running")
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("plugins never see NOTIFY_SOCKET or WATCHDOG_USEC: no plugin can say the host is ready or alive")
    func variablesHidden() throws {
        let (directory, log) = try recorder(#", "environment": "NOTIFY_SOCKET,WATCHDOG_USEC""#)
        let listener = try NotifyListener()
        let host = try start(directory, environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "5000000"])
        #expect(listener.nextSkippingPings() == "READY=1\nSTATUS=1 plugin running")
        #expect(host.stop(with: SIGTERM).status == 0)
        #expect(log.lines.filter { $0.hasPrefix("RecA environment") }
            == ["RecA environment NOTIFY_SOCKET unset", "RecA environment WATCHDOG_USEC unset"])
    }

    @Test("a start-up that fails says STOPPING=1 and never READY=1")
    func failedStart() throws {
        let (directory, _) = try recorder(#", "bootstrapFails": true"#)
        let listener = try NotifyListener()
        let host = try start(directory, environment: ["NOTIFY_SOCKET": listener.address])
        #expect(host.wait().status == 1)
        let messages = listener.messages(during: .milliseconds(300))
        #expect(!messages.contains { $0.hasPrefix("READY=1") })
        #expect(messages.contains { $0.hasPrefix("STOPPING=1") })
    }

    @Test("WATCHDOG=1 every half WATCHDOG_USEC while health is good; pings stop while a component is unhealthy and resume after")
    func watchdogFollowsHealth() throws {
        let directory = try PluginDirectoryFixture(fixtures: ["RecA"])
        let health = directory.root.appending(path: "health")
        try Data("healthy\n".utf8).write(to: health, options: .atomic)
        try directory.configure(#""RecA": {"serve": true, "health": "\#(health.path)"}"#)
        let listener = try NotifyListener()
        // A 400 ms watchdog: a ping every 200 ms, a health check every 200 ms (half of it).
        let host = try start(directory, environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "400000"])
        #expect(listener.wait(for: "READY=1\nSTATUS=1 plugin running"))
        #expect(listener.messages(during: .seconds(1)).filter { $0 == "WATCHDOG=1" }.count >= 3)

        try Data("unhealthy: lost its database\n".utf8).write(to: health, options: .atomic)
        #expect(listener.wait(for: "STATUS=1 plugin running; unhealthy: RecA (lost its database)"))
        // One ping may have been on its way as the check answered.
        #expect(listener.messages(during: .seconds(1.2)).filter { $0 == "WATCHDOG=1" }.count <= 1)

        try Data("healthy\n".utf8).write(to: health, options: .atomic)
        #expect(listener.wait(for: "STATUS=1 plugin running"))
        #expect(listener.messages(during: .seconds(1)).filter { $0 == "WATCHDOG=1" }.count >= 3)
        #expect(host.stop(with: SIGTERM).status == 0)
    }

    @Test("WATCHDOG_PID naming another process: no pings")
    func watchdogForAnotherProcess() throws {
        let (directory, _) = try recorder()
        let listener = try NotifyListener()
        let host = try start(directory, environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"])
        #expect(listener.next() == "READY=1\nSTATUS=1 plugin running")
        #expect(listener.messages(during: .seconds(0.5)).isEmpty)
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}
