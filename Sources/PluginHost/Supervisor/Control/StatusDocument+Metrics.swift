/// The status's figures as a Prometheus server scrapes them (`plugin-host status --metrics`),
/// in the text exposition format (version 0.0.4).
extension StatusDocument {
    /// The supervisor's states, each a series of `plugin_host_state`.
    static let states = HostState.allCases.filter { $0 != .finished }

    var metrics: String {
        var text = ""
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: [(String, String)], value: Double)]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples {
                let labels = sample.labels.isEmpty ? "" : "{" + sample.labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
                text += "\(name)\(labels) \(Self.number(sample.value))\n"
            }
        }
        family("plugin_host_up", "gauge", "Whether a generation of the host serves (1) or not (0).", [([], state == .serving ? 1 : 0)])
        family(
            "plugin_host_state", "gauge", "The supervisor's state: 1 for the state it is in.",
            Self.states.map { ([("state", $0.description)], state == $0 ? 1 : 0) })
        family("plugin_host_generation", "gauge", "The number of the generation that speaks for the host.", [([], Double(generations.first?.number ?? 0))])
        if let host {
            family(
                "plugin_host_build_info", "gauge", "The plugin-host binary the supervisor runs: its version and build id (1).",
                [([("version", host.version), ("build_id", host.buildID ?? "")], 1)])
            if let upgrade = host.lastUpgrade {
                family(
                    "plugin_host_host_upgrade_last_timestamp_seconds", "gauge",
                    "When the last upgrade of the host's own binary (plugin-host upgrade-host) ended, as this host saw it.",
                    [([], upgrade.at.secondsSinceEpoch)])
                family(
                    "plugin_host_host_upgrade_last_success", "gauge",
                    "Whether the last upgrade of the host's binary did what was asked (1), or was refused or failed (0).",
                    [([], upgrade.ok ? 1 : 0)])
            }
        }
        family("plugin_host_start_time_seconds", "gauge", "When the host started, in seconds since the Unix epoch.", [([], startedAt.secondsSinceEpoch)])
        family("plugin_host_restarts_total", "counter", "Restarts of the host's worker after a failure.", [([], Double(restarts.total))])
        family("plugin_host_restarts_in_window", "gauge", "Restarts within the --restart-limit window that ends now.", [([], Double(restarts.used))])
        family("plugin_host_restart_limit", "gauge", "The most restarts --restart-limit allows within its window.", [([], Double(restarts.limit))])
        family(
            "plugin_host_reloads_total", "counter", "Reloads (SIGHUP, plugin-host reload), by outcome.",
            [([("result", "applied")], Double(reloads.applied)), ([("result", "refused")], Double(reloads.refused))])
        // An optional plugin nobody installed was never meant to run: it has no series of its
        // own (Prometheus' way for a target that does not exist), so no alert on `up == 0`
        // fires for it; plugin_host_plugin_optional_absent names it.
        let present = plugins.filter { $0.state != .optionalAndAbsent }
        family(
            "plugin_host_plugin_up", "gauge", "Whether a plugin serves (1), or not (0), in the generation that speaks for the host.",
            present.map { ([("plugin", $0.name)], $0.isUp ? 1 : 0) })
        family(
            "plugin_host_plugin_left_out", "gauge", "Whether a plugin is left out (1) or not (0); plugin-host status says why.",
            present.map { ([("plugin", $0.name)], $0.state == .leftOut ? 1 : 0) })
        family(
            "plugin_host_plugin_optional_absent", "gauge", "A plugin some plugin uses when installed, and nobody installed (1).",
            plugins.filter { $0.state == .optionalAndAbsent }.map { ([("plugin", $0.name)], 1) })
        family(
            "plugin_host_plugin_trial_end_timestamp_seconds", "gauge",
            "When the trial of a plugin's build on trial ends (--trial); only plugins on trial have one.",
            plugins.compactMap { plugin in plugin.trial.map { ([("plugin", plugin.name)], $0.until.secondsSinceEpoch) } })
        family(
            "plugin_host_plugin_build_info", "gauge",
            "The build a plugin runs (1): its version, and where it came from: file, held (from before) or record (the record's copy).",
            plugins.compactMap { plugin in
                guard let from = plugin.from, let version = plugin.version else { return nil }
                return ([("plugin", plugin.name), ("version", version), ("from", from.rawValue)], 1)
            })
        family(
            "plugin_host_plugin_failures_total", "counter", "Ends of a generation blamed on a plugin.",
            present.map { ([("plugin", $0.name)], Double($0.failures)) })
        family(
            "plugin_host_plugin_last_failure_timestamp_seconds", "gauge", "When the last failure blamed on a plugin happened.",
            plugins.compactMap { plugin in plugin.lastFailure.map { ([("plugin", plugin.name)], $0.at.secondsSinceEpoch) } })
        family(
            "plugin_host_health_check_duration_seconds", "gauge", "How long each plugin took to answer its last health check.",
            plugins.sorted { $0.name < $1.name }.compactMap { plugin in plugin.healthCheckSeconds.map { ([("plugin", plugin.name)], $0) } })
        family("plugin_host_warnings", "gauge", "Warnings in force.", [([], Double(warnings.count))])
        if let supervisor {
            family(
                "plugin_host_supervisor_cpu_seconds_total", "counter",
                "Processor time (user and system) the supervisor process used, its workers not included.",
                [([], supervisor.cpuSeconds)])
            family("plugin_host_supervisor_events_total", "counter", "Events the supervisor's state machine took.", [([], Double(supervisor.events))])
        }
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
