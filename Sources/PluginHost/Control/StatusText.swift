import PluginABI

/// A running host's status as an operator reads it, in the manner of `systemctl status`:
/// written from the JSON document the host answers with (schema 1, docs/operations.md), so
/// that the text and `--json` never tell different stories.
struct StatusText {
    let status: Setting

    var rendered: String {
        var text = headline + "\n"
        var facts: [(String, String)] = []
        facts.append(("Supervisor", "pid \(status["pid"].whole.map(String.init) ?? "?")"))
        for generation in status["generations"].list {
            let number = generation["number"].whole.map(String.init) ?? "?"
            let pid = generation["pid"].whole.map { ", pid \($0)" } ?? ""
            let age = generation["ageSeconds"].number.map { ", for \(Self.span($0))" } ?? ""
            facts.append(("Generation", "\(number)\(pid): \(generation["role"].text ?? "?")\(age) (\(generation["cause"].text ?? "?"))"))
        }
        let restarts = status["restarts"]
        if restarts["enabled"].bool == true {
            var line = "\(restarts["used"].whole ?? 0) of \(restarts["limit"].whole ?? 0) within "
                + "\(Self.span(restarts["windowSeconds"].number ?? 0)), \(restarts["total"].whole ?? 0) in all"
            if let healed = restarts["healed"].whole, healed > 0 {
                line += " (\(healed) healed by leaving a build out, at once)"
            }
            if let delay = restarts["nextDelaySeconds"].number {
                line += delay > 0 ? "; a failure leaving out does not heal waits \(Self.span(delay))" : "; the next starts at once"
            }
            facts.append(("Restarts", line))
        } else {
            facts.append(("Restarts", "off (--restart no), \(restarts["total"].whole ?? 0) in all"))
        }
        let reload = status["lastReload"]
        if reload != .null {
            let result = reload["applied"].bool == true ? "applied" : "refused: " + reload["reasons"].list.compactMap(\.text).joined(separator: "; ")
            facts.append(("Last reload", "\(reload["at"].text ?? "?") \(result)"))
        }
        let upgrade = status["lastUpgrade"]
        if upgrade != .null {
            facts.append(("Last upgrade", "\(upgrade["at"].text ?? "?") \(upgrade["result"].text ?? "?"): \(upgrade["detail"].text ?? "")"))
        }
        for socket in status["sockets"].list {
            facts.append(("Socket", "\(socket["name"].text ?? "?") on \(socket["address"].text ?? "?")"))
        }
        if let control = status["control"].text { facts.append(("Control", control)) }
        let directories = status["directories"].list.compactMap(\.text)
        if !directories.isEmpty { facts.append(("Plugins from", directories.joined(separator: ":"))) }
        let width = facts.map(\.0.count).max() ?? 0
        for (label, value) in facts {
            text += String(repeating: " ", count: width - label.count + 3) + label + ": " + value + "\n"
        }

        let plugins = status["plugins"].list
        if !plugins.isEmpty {
            text += "\n" + TextTable.render(
                header: ["plugin", "version", "state", "build", "file"],
                rows: plugins.map { plugin in
                    [plugin["name"].text ?? "?", plugin["version"].text ?? "-", plugin["state"].text ?? "?", Self.build(of: plugin),
                     plugin["file"].text ?? "-"]
                })
            for plugin in plugins {
                let name = plugin["name"].text ?? "?"
                if let reason = plugin["reason"].text { text += "  \(name): \(reason)\n" }
                if case let trial = plugin["trial"], trial != .null {
                    text += "  \(name): \(trial["version"].text ?? "?") on trial until \(trial["until"].text ?? "?") "
                        + "(\(Self.span(trial["secondsLeft"].number ?? 0)) left); "
                        + (trial["canRollBack"].bool == true ? "a failure brings back \(trial["replaces"].text ?? "?")"
                            : "\(trial["replaces"].text ?? "?") is no longer held, so nothing can come back") + "\n"
                }
                if plugin["fileChanged"].bool == true {
                    text += "  \(name): the file on disk is another build than the one that runs\n"
                }
                let failures = plugin["failures"].whole ?? 0
                if failures > 0, case let failure = plugin["lastFailure"], failure != .null {
                    text += "  \(name): \(failures) failure\(failures == 1 ? "" : "s"), the last \(failure["at"].text ?? "?"): "
                        + "\(failure["summary"].text ?? "?")\n"
                }
            }
        }
        let warnings = status["warnings"].list.compactMap(\.text)
        if !warnings.isEmpty {
            text += "\nWarnings in force:\n" + warnings.map { "  \($0)\n" }.joined()
        }
        return text
    }

    /// `● plugin-host: serving since 2026-11-25T20:01:02Z; 3m 12s`.
    var headline: String {
        let state = status["state"].text ?? "unknown"
        var line = "● plugin-host: \(state)"
        if state == "backing off", let until = status["backingOffUntil"].text {
            line += " until \(until) (\(Self.span(status["backingOffSeconds"].number ?? 0)) from now)"
        }
        if let started = status["startedAt"].text {
            line += "; started \(started), up \(Self.span(status["uptimeSeconds"].number ?? 0))"
        }
        return line
    }

    /// The build that runs, in a few words: `184 KiB, 2026-11-25T19:58:01Z, build id 3fa2c1e0`.
    static func build(of plugin: Setting) -> String {
        let build = plugin["build"]
        guard build != .null else { return "-" }
        var parts = [byteCount(build["size"].whole ?? 0), build["modified"].text ?? "?"]
        if let id = build["buildID"].text { parts.append("build id " + String(id.prefix(12))) }
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
