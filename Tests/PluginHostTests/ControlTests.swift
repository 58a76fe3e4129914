import PluginABI
import Testing

@testable import PluginHost

@Suite("The control socket's requests, answers and documents")
struct ControlTests {
    private func request(_ json: String) throws(ControlError) -> ControlRequest {
        try ControlRequest(json: Array(json.utf8))
    }

    @Test("a request is one JSON object with a command; anything else is refused with what to send")
    func requests() throws {
        #expect(try request(#"{"command": "status"}"#) == .status)
        #expect(try request(#"{"command": "restart", "plugins": ["Ticker"]}"#) == .restart(["Ticker"]))
        #expect(try request(#"{"command": "restart"}"#) == .restart([]))
        #expect(throws: ControlError(#"not a JSON object; send one line such as {"command": "status"}"#)) { try request("status") }
        #expect(throws: ControlError(#"not a JSON object; send one line such as {"command": "status"}"#)) { try request("[1]") }
        #expect(throws: ControlError(#"no "command""#)) { try request(#"{"comand": "status"}"#) }
        #expect(throws: ControlError(#""plugins" must be a list of names"#)) { try request(#"{"command": "restart", "plugins": "Ticker"}"#) }
        #expect(throws: ControlError(#""plugins" must be a list of names"#)) { try request(#"{"command": "restart", "plugins": [""]}"#) }
        #expect(throws: ControlError(#"unknown command "halt"; the commands are status, wait, follow, metrics, reload, restart, accept, rollback, stop, upgrade-host"#)) {
            try request(#"{"command": "halt"}"#)
        }
        // What a client sends, the host reads back.
        let every: [ControlRequest] = [
            .status, .wait, .follow, .metrics, .reload, .restart(["A", "B \"quoted\""]), .stop, .accept(["A"]), .rollBack(["A"], to: "1.2.0"),
            .rollBack([], to: nil), .upgradeHost,
        ]
        #expect(Set(every.map(\.name)) == Set(ControlRequest.names))
        for sent in every {
            #expect(try request(sent.json) == sent)
        }
    }

    private func document(plugins: [PluginStatus] = [], warnings: [String] = []) -> StatusDocument {
        let start = MonotonicInstant(nanoseconds: 1_000_000_000)
        let status = HostStatus(
            state: .serving, startedAt: start, now: start + .seconds(90), generations: [
                GenerationStatus(role: .serving, number: 3, cause: .restart, startedAt: start + .seconds(60), readyAt: start + .seconds(61)),
            ], plugins: plugins,
            restarts: RestartStatus(used: 1, limit: 5, window: .seconds(60), total: 2, inARow: 1, healed: 0, nextDelay: .milliseconds(200), enabled: true),
            warnings: warnings)
        let facts = StatusDocument.Facts(
            process: ProcessID(rawValue: 100), workers: [3: ProcessID(rawValue: 103)], wallNow: 1_795_636_081, monotonicNow: start + .seconds(90))
        return StatusDocument(status: status, facts: facts)
    }

    @Test("metrics: one HELP and TYPE a family, label values escaped as the text format asks")
    func metrics() {
        let odd = PluginStatus(name: "Odd\"Name\\with\nnewline", state: .leftOut, reason: .leftOut(.recorded("crashed")))
        let text = document(plugins: [odd]).metrics
        #expect(text.contains(#"plugin_host_plugin_left_out{plugin="Odd\"Name\\with\nnewline"} 1"#), "\(text)")
        #expect(text.contains("plugin_host_generation 3\n"))
        #expect(text.contains("plugin_host_restarts_total 2\n"))
        #expect(text.contains("plugin_host_start_time_seconds 1795635991\n"))
        let families = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        #expect(Set(families).count == families.count, "each family once")
        #expect(text.split(separator: "\n").allSatisfy { $0.hasPrefix("# HELP ") || $0.hasPrefix("# TYPE ") || $0.hasPrefix("plugin_host_") })
    }

    @Test("the JSON document: schema 1, instants as UTC, the worker of each generation")
    func json() throws {
        let parsed = try JSONParser.parse(Array(document(warnings: ["w"]).json.rendered().utf8))
        #expect(parsed["schema"].whole == 1)
        #expect(parsed["pid"].whole == 100)
        #expect(parsed["startedAt"].text == "2026-11-25T19:46:31Z")
        #expect(parsed["uptimeSeconds"].number == 90)
        #expect(parsed["generations"].list.first?["pid"].whole == 103)
        #expect(parsed["generations"].list.first?["ageSeconds"].number == 30)
        #expect(parsed["restarts"]["nextDelaySeconds"].number == 0.2)
        #expect(parsed["warnings"].list == [.string("w")])
    }

    @Test("the default control path: per user and per set of plugin directories, in the first runtime directory")
    func defaultPath() {
        let none: (String) -> String? = { _ in nil }
        let xdg: (String) -> String? = { $0 == "XDG_RUNTIME_DIR" ? "/run/user/1000" : nil }
        let systemd: (String) -> String? = { $0 == "RUNTIME_DIRECTORY" ? "/run/plugin-host" : nil }
        #expect(ControlPath.forHost(of: ["/nonexistent/a"], environment: none, user: 1000).hasPrefix("/tmp/plugin-host-1000/"))
        #expect(ControlPath.forHost(of: ["/nonexistent/a"], environment: none, user: 0).hasPrefix("/run/plugin-host/"))
        #expect(ControlPath.forHost(of: ["/nonexistent/a"], environment: xdg, user: 1000).hasPrefix("/run/user/1000/plugin-host/"))
        #expect(ControlPath.forHost(of: ["/nonexistent/a"], environment: systemd, user: 1000).hasPrefix("/run/plugin-host/"))
        let a = ControlPath.fileName(for: ["/nonexistent/a"])
        #expect(a == ControlPath.fileName(for: ["/nonexistent/a"]), "stable")
        #expect(a != ControlPath.fileName(for: ["/nonexistent/b"]))
        #expect(a != ControlPath.fileName(for: ["/nonexistent/a", "/nonexistent/b"]))
        #expect(a.count == 21 && a.hasSuffix(".sock"))
    }

    @Test("spans as an operator reads them")
    func spans() {
        #expect(StatusText.span(0) == "0 s")
        #expect(StatusText.span(0.42) == "0.4 s")
        #expect(StatusText.span(42) == "42 s")
        #expect(StatusText.span(60) == "1 min")
        #expect(StatusText.span(192) == "3m 12s")
        #expect(StatusText.span(7500) == "2h 5m")
        #expect(StatusText.span(3 * 86_400 + 4 * 3600) == "3d 4h")
        #expect(StatusText.byteCount(812) == "812 B")
        #expect(StatusText.byteCount(188_416) == "184 KiB")
    }

    @Test("the status document reads back as the same type it was written as, every field")
    func documentReadsBack() throws {
        let build = FileIdentity(device: 2049, inode: 77, size: 188_416, modificationNanoseconds: 1_795_600_000_000_000_000, changeNanoseconds: 1_795_600_000_000_000_000)
        var plugin = PluginStatus(name: "Counter", state: .serving, reason: nil, version: "0.3.1", file: "plugins/libCounter.so", build: build)
        plugin.requires = ["Persistence"]
        plugin.held = "0.3.0"
        plugin.trial = TrialStatus(version: "0.3.1", replaces: "0.3.0", until: MonotonicInstant(nanoseconds: 100_000_000_000), canRollBack: true)
        plugin.failures = 2
        plugin.lastFailure = FailureRecord(at: MonotonicInstant(nanoseconds: 50_000_000_000), version: "0.3.0", summary: .crashed(during: "the run phase", .segmentationFault))
        let left = PluginStatus(name: "Ticker", state: .leftOut, reason: .leftOut(.recorded("crashed")), version: nil, file: nil)
        let written = document(plugins: [plugin, left], warnings: ["settings: unknown plugin \"Nope\""])
        let sent = try JSONParser.parse(Array(written.json.rendered().utf8))
        let read = try JSONCoding.decode(StatusDocument.self, from: sent)
        #expect(read == written)
        #expect(read.plugins.first?.trial?.until.description == "2026-11-25T19:48:10Z")
        #expect(read.plugins.last?.build == nil, "a plugin with no build reads as one")
        #expect(sent["plugins"].list.last?["reason"].text == "crashed; left out until its file changes")
        #expect(sent["plugins"].list.last?["version"] == .null, "an absent value is written as null, not left out")
    }

    @Test("every answer reads back as written, with only its own members on the wire")
    func repliesReadBack() throws {
        let written = document()
        let answers: [ControlReply] = [
            ControlReply(.status(HostStatus.example), document: written),
            ControlReply(.change("serving -> recovering", HostStatus.example), document: written),
            ControlReply(.metrics(HostStatus.example), document: written),
            ControlReply(.reload(applied: false, reasons: ["settings.json: not JSON"]), document: nil),
            ControlReply(.restart(.serves(generation: 4)), document: nil),
            ControlReply(.stopped(.success), document: nil),
            ControlReply(.refused(.noTrial(["Probe"])), document: nil),
        ]
        for answer in answers {
            let line = answer.json.rendered()
            let parsed = try JSONParser.parse(Array(line.utf8))
            #expect(try JSONCoding.decode(ControlReply.self, from: parsed) == answer, "\(line)")
            #expect(!line.contains("null") || answer.status != nil, "members an answer does not have are left out: \(line)")
        }
    }

    @Test("a document of the wrong shape is refused with where and what, a missing optional reads as absent")
    func documentsOfTheWrongShape() throws {
        let reply = try JSONParser.parse(Array(#"{"ok": true, "restart": {"serving": "yes", "message": "m"}}"#.utf8))
        do {
            _ = try JSONCoding.decode(ControlReply.self, from: reply)
            Issue.record("a string where a boolean belongs was read")
        } catch {
            #expect(error.description == #"at restart.serving: expected true or false, found the string "yes""#)
        }
        let older = try JSONParser.parse(Array(#"{"ok": false}"#.utf8))
        #expect(try JSONCoding.decode(ControlReply.self, from: older) == ControlReply(ok: false))
    }

    @Test("wall-clock times read back as the seconds they were written from")
    func wallTimes() {
        for seconds in [0.0, 951_782_400, 1_795_636_081, 4_107_542_399] {
            #expect(TextFormat.secondsSinceEpoch(utc: TextFormat.utc(seconds)) == seconds, "\(TextFormat.utc(seconds))")
        }
        #expect(TextFormat.secondsSinceEpoch(utc: "2026-11-25T20:01:02") == nil)
        #expect(TextFormat.secondsSinceEpoch(utc: "2026-13-25T20:01:02Z") == nil)
        #expect(TextFormat.secondsSinceEpoch(utc: "2026-11-25T20:0a:02Z") == nil)
    }
}

extension HostStatus {
    /// A status with nothing in it, for answers whose document is given apart.
    static let example = HostStatus(
        state: .serving, startedAt: MonotonicInstant(nanoseconds: 0), now: MonotonicInstant(nanoseconds: 0),
        restarts: RestartStatus(used: 0, limit: 5, window: .seconds(60), total: 0, inARow: 0, healed: 0, nextDelay: .zero, enabled: true))
}
