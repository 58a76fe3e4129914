/// A running host's status as an operator reads it, in the manner of `systemctl status`:
/// written from the status document the host answers with (``StatusDocument``), so that the
/// text and `--json` never tell different stories.
struct StatusText {
    let status: StatusDocument

    var rendered: String {
        var text = headline + "\n"
        var facts: [(String, String)] = []
        facts.append(("Supervisor", "pid \(status.pid)"))
        for generation in status.generations {
            let pid = generation.pid.map { ", pid \($0)" } ?? ""
            facts.append(("Generation", "\(generation.number)\(pid): \(generation.role), for \(Self.span(generation.ageSeconds)) (\(generation.cause))"))
        }
        let restarts = status.restarts
        if restarts.enabled {
            // `3 in all; 1 healed by leaving a build out (at once, not counted); 2 of at most 5
            // within 1 min that leaving out did not heal; the next of those waits 0.1 s`.
            var line = "\(restarts.total) in all"
            if restarts.healed > 0 { line += "; \(restarts.healed) healed by leaving a build out (at once, not counted)" }
            line += "; \(restarts.used) of at most \(restarts.limit) within \(Self.span(restarts.windowSeconds)) that leaving out did not heal"
            line += restarts.nextDelaySeconds > 0
                ? "; the next of those waits \(Self.span(restarts.nextDelaySeconds))" : "; the next of those starts at once"
            facts.append(("Restarts", line))
        } else {
            facts.append(("Restarts", "off (--restart no), \(restarts.total) in all"))
        }
        if let reload = status.lastReload {
            let result = reload.applied ? "applied" : "refused: " + reload.reasons.joined(separator: "; ")
            facts.append(("Last reload", "\(reload.at) \(result)"))
        }
        if let upgrade = status.lastUpgrade {
            facts.append(("Last upgrade", "\(upgrade.at) \(upgrade.result): \(upgrade.detail)"))
        }
        if let upgrade = status.host?.lastUpgrade {
            facts.append(("Host upgrade", "\(upgrade.at) \(upgrade.detail)"))
        }
        for socket in status.sockets {
            facts.append(("Socket", "\(socket.name) on \(socket.address)"))
        }
        if let control = status.control { facts.append(("Control", control)) }
        if let host = status.host {
            let build = host.buildID.map { ", build id " + String($0.prefix(12)) } ?? ""
            let changed = host.fileChanged != true ? ""
                : host.fileVersion.map { "; the file is now another build, plugin-host \($0), which the host runs once it is started again" }
                ?? "; the file is now another build, which is no plugin-host (or is gone)"
            facts.append(("Host", "plugin-host \(host.version)\(build), \(host.path)\(changed)"))
        }
        if !status.directories.isEmpty { facts.append(("Plugins from", status.directories.joined(separator: ":"))) }
        if let record = status.record {
            let stalled = status.recordStalledSeconds.map { " (not written for \(Self.span($0)): its state directory does not answer)" } ?? ""
            facts.append(("Record", record + stalled))
        }
        let width = facts.map(\.0.count).max() ?? 0
        for (label, value) in facts {
            text += String(repeating: " ", count: width - label.count + 3) + label + ": " + value + "\n"
        }

        if !status.plugins.isEmpty {
            text += "\n" + TextTable.render(
                header: ["plugin", "version", "state", "build", "file"],
                rows: status.plugins.map { plugin in
                    [plugin.isNamed ? plugin.name : "-", plugin.version ?? "-", plugin.state.rawValue, Self.build(of: plugin), plugin.file ?? "-"]
                })
            for plugin in status.plugins {
                let name = plugin.name
                // A reason names the file it is about; the line names it once.
                if let reason = plugin.reason {
                    text += "  " + (reason.hasPrefix(plugin.label + ": ") ? reason : "\(plugin.label): \(reason)") + "\n"
                }
                if let trial = plugin.trial {
                    text += "  \(name): \(trial.version) on trial until \(trial.until) (\(Self.span(trial.secondsLeft)) left); "
                        + (trial.canRollBack ? "a failure brings back \(trial.replaces)"
                            : "\(trial.replaces) is no longer held, so nothing can come back") + "\n"
                }
                if let from = plugin.from, from != .file {
                    text += "  \(name): runs \(plugin.version ?? "its build") from "
                        + (from == .record ? "the record's copy" : "the build held from before") + ", not from its file\n"
                }
                if plugin.fileChanged == true {
                    text += "  \(name): the file on disk is another build than the one that runs\n"
                }
                if plugin.failures > 0, let failure = plugin.lastFailure {
                    text += "  \(name): \(plugin.failures) failure\(plugin.failures == 1 ? "" : "s"), the last \(failure.at), "
                        + (failure.version.map { "of \(name) \($0)" } ?? "of an unknown build") + ": \(failure.summary)\n"
                }
            }
        }
        if !status.warnings.isEmpty {
            text += "\nWarnings in force:\n" + status.warnings.map { "  \($0)\n" }.joined()
        }
        return text
    }

    /// `● plugin-host: serving; started 2026-11-25T20:01:02Z, up 3m 12s`.
    var headline: String {
        var line = "● plugin-host: \(status.state)"
        if status.state == .backingOff, let until = status.backingOffUntil {
            line += " until \(until) (\(Self.span(status.backingOffSeconds ?? 0)) from now)"
        }
        return line + "; started \(status.startedAt), up \(Self.span(status.uptimeSeconds))"
    }

    /// The build that runs, in a few words: `184 KiB, 2026-11-25T19:58:01Z, build id 3fa2c1e0`.
    static func build(of plugin: StatusDocument.Plugin) -> String {
        guard let build = plugin.build else { return "-" }
        var parts = [byteCount(build.size), build.modified.description]
        if let id = build.buildID { parts.append("build id " + String(id.prefix(12))) }
        return parts.joined(separator: ", ")
    }

    /// A number of bytes as `812 B`, `184 KiB`, `3.2 MiB`.
    static func byteCount(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1 << 20 { return "\(bytes >> 10) KiB" }
        return "\(Double(bytes * 10 >> 20).rounded() / 10) MiB"
    }

    /// Seconds as an operator reads a span: `0.4 s`, `42 s`, `3m 12s`, `2h 5m`, `3d 4h`.
    static func span(_ seconds: Double) -> String {
        if seconds <= 0 { return "0 s" }
        if seconds < 10 { return "\((seconds * 10).rounded() / 10) s" }
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole % 60 == 0, whole < 3600 { return "\(whole / 60) min" }
        if whole < 3600 { return "\(whole / 60)m \(whole % 60)s" }
        if whole < 86_400 { return "\(whole / 3600)h \(whole / 60 % 60)m" }
        return "\(whole / 86_400)d \(whole / 3600 % 24)h"
    }
}
