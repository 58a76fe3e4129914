/// The status an operator reads (`plugin-host status --json`, schema 1) and the figures a
/// Prometheus server scrapes: the machine's ``HostStatus``, with what only the supervisor's
/// driver sees: process ids, the sockets, the files on disk now, build ids, wall-clock time.
struct StatusDocument {
    /// What the driver adds to the machine's status.
    struct Facts {
        /// The supervisor's process id.
        var process: ProcessID
        /// Each live generation's worker process.
        var workers: [Int: ProcessID] = [:]
        /// The sockets the host holds for its plugins: name and address.
        var sockets: [(name: String, address: String)] = []
        var control: String?
        var directories: [String] = []
        /// The build id of each build that runs, by that build, where its file has one.
        var buildIDs: [FileIdentity: String] = [:]
        /// Each plugin file's build on disk now, by path; `nil` when it is gone.
        var onDisk: [String: FileIdentity?] = [:]
        /// Seconds since the Unix epoch at the instant ``monotonicNow``: to write instants as
        /// wall-clock times.
        var wallNow: Double
        var monotonicNow: MonotonicInstant
    }

    let status: HostStatus
    let facts: Facts

    /// The version of the JSON document's layout; a field is only ever added to it.
    static let schema = 1

    /// An instant as the wall-clock time it was: `2026-11-25T20:01:02Z`.
    private func wallClock(_ instant: MonotonicInstant) -> String {
        TextFormat.utc(epochSeconds(instant))
    }

    private func epochSeconds(_ instant: MonotonicInstant) -> Double {
        facts.wallNow - Self.seconds(facts.monotonicNow - instant)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    // MARK: JSON

    /// The status as JSON: see docs/operations.md, "Status, in JSON".
    var json: JSONOutput {
        .object([
            ("schema", .number(Double(Self.schema))),
            ("pid", .number(Double(facts.process.rawValue))),
            ("state", .string(status.state)),
            ("startedAt", .string(wallClock(status.startedAt))),
            ("uptimeSeconds", .number(rounded(Self.seconds(status.now - status.startedAt)))),
            ("backingOffUntil", status.backingOffUntil.map { .string(wallClock($0)) } ?? .null),
            ("backingOffSeconds", status.backingOffUntil.map { .number(rounded(Self.seconds(max(.zero, $0 - status.now)))) } ?? .null),
            ("control", facts.control.map(JSONOutput.string) ?? .null),
            ("directories", .array(facts.directories.map(JSONOutput.string))),
            ("generations", .array(status.generations.map(generation))),
            ("plugins", .array(status.plugins.map(plugin))),
            ("restarts", .object([
                ("used", .number(Double(status.restarts.used))), ("limit", .number(Double(status.restarts.limit))),
                ("windowSeconds", .number(Self.seconds(status.restarts.window))), ("total", .number(Double(status.restarts.total))),
                ("inARow", .number(Double(status.restarts.inARow))), ("healed", .number(Double(status.restarts.healed))),
                ("nextDelaySeconds", .number(rounded(Self.seconds(status.restarts.nextDelay)))), ("enabled", .bool(status.restarts.enabled)),
            ])),
            ("sockets", .array(facts.sockets.map { .object([("name", .string($0.name)), ("address", .string($0.address))]) })),
            ("lastReload", status.lastReload.map { reload in
                .object([
                    ("at", .string(wallClock(reload.at))), ("applied", .bool(reload.applied)),
                    ("reasons", .array(reload.reasons.map(JSONOutput.string))),
                ])
            } ?? .null),
            ("lastUpgrade", status.lastUpgrade.map { upgrade in
                .object([("at", .string(wallClock(upgrade.at))), ("result", .string(upgrade.result)), ("detail", .string(upgrade.detail))])
            } ?? .null),
            ("reloads", .object([("applied", .number(Double(status.reloadsApplied))), ("refused", .number(Double(status.reloadsRefused)))])),
            ("warnings", .array(status.warnings.map(JSONOutput.string))),
        ])
    }

    private func generation(_ generation: GenerationStatus) -> JSONOutput {
        .object([
            ("number", .number(Double(generation.number))),
            ("pid", facts.workers[generation.number].map { .number(Double($0.rawValue)) } ?? .null),
            ("role", .string(generation.role)),
            ("cause", .string("\(generation.cause)")),
            ("startedAt", .string(wallClock(generation.startedAt))),
            ("ageSeconds", .number(rounded(Self.seconds(status.now - generation.startedAt)))),
            ("readyAt", generation.readyAt.map { .string(wallClock($0)) } ?? .null),
        ])
    }

    private func plugin(_ plugin: PluginStatus) -> JSONOutput {
        var members: [(String, JSONOutput)] = [
            ("name", .string(plugin.name)), ("state", .string(plugin.state.rawValue)),
            ("reason", plugin.reason.map(JSONOutput.string) ?? .null), ("version", plugin.version.map(JSONOutput.string) ?? .null),
            ("file", plugin.file.map(JSONOutput.string) ?? .null),
        ]
        members.append(("build", plugin.build.map { build in
            .object([
                ("size", .number(Double(build.size))),
                ("modified", .string(TextFormat.utc(Double(build.modificationNanoseconds) / 1e9))),
                ("device", .number(Double(build.device))), ("inode", .number(Double(build.inode))),
                ("buildID", facts.buildIDs[build].map(JSONOutput.string) ?? .null),
            ])
        } ?? .null))
        members.append(("fileChanged", fileChanged(plugin).map(JSONOutput.bool) ?? .null))
        members.append(("held", plugin.held.map(JSONOutput.string) ?? .null))
        members.append(("trial", plugin.trial.map { trial in
            .object([
                ("version", .string(trial.version)), ("replaces", .string(trial.replaces)), ("until", .string(wallClock(trial.until))),
                ("secondsLeft", .number(rounded(Self.seconds(max(.zero, trial.until - status.now))))), ("canRollBack", .bool(trial.canRollBack)),
            ])
        } ?? .null))
        members.append(("requires", .array(plugin.requires.map(JSONOutput.string))))
        members.append(("failures", .number(Double(plugin.failures))))
        members.append(("lastFailure", plugin.lastFailure.map { failure in
            .object([("at", .string(wallClock(failure.at))), ("summary", .string(failure.summary))])
        } ?? .null))
        return .object(members)
    }

    /// Whether the plugin's file on disk now is another build than the one that runs; `nil`
    /// when no build of it runs.
    func fileChanged(_ plugin: PluginStatus) -> Bool? {
        guard let build = plugin.build, let file = plugin.file, let onDisk = facts.onDisk[file] else { return nil }
        return onDisk.map { !$0.hasSameContents(as: build) } ?? true
    }

    private func rounded(_ seconds: Double) -> Double {
        (seconds * 1000).rounded() / 1000
    }

    // MARK: Prometheus

    /// The figures in the Prometheus text exposition format (version 0.0.4).
    var metrics: String {
        var text = ""
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: [(String, String)], value: Double)]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples {
                let labels = sample.labels.isEmpty ? "" : "{" + sample.labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
                text += "\(name)\(labels) \(Self.number(sample.value))\n"
            }
        }
        let current = status.generations.first
        family("plugin_host_up", "gauge", "Whether a generation of the host serves (1) or not (0).", [([], status.state == "serving" ? 1 : 0)])
        family(
            "plugin_host_state", "gauge", "The supervisor's state: 1 for the state it is in.",
            ["starting", "serving", "recovering", "backing off", "upgrading", "handing over", "taking over", "stopping"].map {
                ([("state", $0)], status.state == $0 ? 1 : 0)
            })
        family("plugin_host_generation", "gauge", "The number of the generation that speaks for the host.", [([], Double(current?.number ?? 0))])
        family("plugin_host_start_time_seconds", "gauge", "When the host started, in seconds since the Unix epoch.", [([], epochSeconds(status.startedAt))])
        family("plugin_host_restarts_total", "counter", "Restarts of the host's worker after a failure.", [([], Double(status.restarts.total))])
        family("plugin_host_restarts_in_window", "gauge", "Restarts within the --restart-limit window that ends now.", [([], Double(status.restarts.used))])
        family("plugin_host_restart_limit", "gauge", "The most restarts --restart-limit allows within its window.", [([], Double(status.restarts.limit))])
        family(
            "plugin_host_reloads_total", "counter", "Reloads (SIGHUP, plugin-host reload), by outcome.",
            [([("result", "applied")], Double(status.reloadsApplied)), ([("result", "refused")], Double(status.reloadsRefused))])
        family(
            "plugin_host_plugin_up", "gauge", "Whether a plugin serves (1), or not (0), in the generation that speaks for the host.",
            status.plugins.map { ([("plugin", $0.name)], [.serving, .degraded].contains($0.state) ? 1 : 0) })
        family(
            "plugin_host_plugin_left_out", "gauge", "Whether a plugin is left out (1) or not (0); plugin-host status says why.",
            status.plugins.map { ([("plugin", $0.name)], $0.state == .leftOut ? 1 : 0) })
        family(
            "plugin_host_plugin_trial_end_timestamp_seconds", "gauge",
            "When the trial of a plugin's build on trial ends (--trial); only plugins on trial have one.",
            status.plugins.compactMap { plugin in plugin.trial.map { ([("plugin", plugin.name)], epochSeconds($0.until)) } })
        family(
            "plugin_host_plugin_failures_total", "counter", "Ends of a generation blamed on a plugin.",
            status.plugins.map { ([("plugin", $0.name)], Double($0.failures)) })
        family(
            "plugin_host_plugin_last_failure_timestamp_seconds", "gauge", "When the last failure blamed on a plugin happened.",
            status.plugins.compactMap { plugin in plugin.lastFailure.map { ([("plugin", plugin.name)], epochSeconds($0.at)) } })
        family(
            "plugin_host_health_check_duration_seconds", "gauge", "How long each plugin took to answer its last health check.",
            status.healthDurations.keys.sorted().map { ([("plugin", $0)], status.healthDurations[$0]!) })
        family("plugin_host_warnings", "gauge", "Warnings in force.", [([], Double(status.warnings.count))])
        return text
    }

    /// A label value as the exposition format writes it: `\`, `"` and newlines escaped.
    static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return value.isFinite ? String(value) : "NaN"
    }
}
