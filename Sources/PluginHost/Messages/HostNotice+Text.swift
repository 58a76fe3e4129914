/// What the host tells systemd, in the words of `STATUS=`.
extension HostNotice {
    /// The datagram's notification.
    var notification: ServiceNotification {
        switch self {
        case .ready(let summary): .ready(status: summary.text)
        case .reloading(let instant): .reloading(at: instant)
        case .status(let activity, let summary):
            .status([activity.text, summary?.text].compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: "; "))
        case .stopping(let why): .stopping(status: why)
        }
    }
}

extension HostNotice.Activity {
    /// `Restarting after plugin Echo crashed during the run phase: SIGSEGV; left out: Echo`.
    var text: String {
        switch self {
        case .worker(let what):
            return what
        case .restarting(let culprits, let failure, let leftOut):
            return "Restarting after " + (culprits.isEmpty ? "the worker \(failure)" : "plugin \(culprits.map(\.name).joined(separator: ", ")) \(failure)")
                + "; left out: " + (leftOut.isEmpty ? "nothing" : leftOut.sorted().joined(separator: ", "))
        case .rollingBack(let rollbacks, let failure):
            return "Rolling back " + Announcement.list(rollbacks) + ": on trial, it \(failure)"
        case .upgrading:
            return "Upgrading: loading the changed plugins beside the running ones"
        case .upgradeFailed(let leftOut):
            return leftOut.isEmpty ? "Upgrade failed: no plugin is to blame; the running plugins keep serving"
                : "Upgrade failed: \(Announcement.names(leftOut)) left out; the running plugins keep serving"
        case .restoring:
            return "Upgrade failed: restoring the builds that ran before"
        }
    }
}

extension PluginSummary {
    /// `3 plugins running; degraded: Echo (slow); left out: Ticker (crashed ...); not added: libX.so`.
    var text: String {
        func entries(_ list: [Entry]) -> String {
            list.map { "\($0.name)\($0.version.map { " " + $0 } ?? "") (\($0.why))" }.joined(separator: ", ")
        }
        var text = "\(running) plugin\(running == 1 ? "" : "s") running"
        if !unwell.isEmpty { text += "; \(unhealthy ? "unhealthy" : "degraded"): " + entries(unwell) }
        if !runningTheBuildBefore.isEmpty { text += "; running the build before: " + entries(runningTheBuildBefore) }
        if !leftOut.isEmpty { text += "; left out: " + entries(leftOut) }
        if !notAdded.isEmpty { text += "; not added: " + notAdded.joined(separator: ", ") }
        return text
    }
}
