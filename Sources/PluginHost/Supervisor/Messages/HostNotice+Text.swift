/// What the host tells systemd, in the words of `STATUS=`.
extension HostNotice {
    /// The datagram systemd reads, from the host whose process is `process`.
    func datagram(of process: ProcessID) -> String {
        switch self {
        case .mainProcess: "MAINPID=\(process.rawValue)"
        case .mainProcessBack(let hostBefore): "MAINPID=\(hostBefore.rawValue)"
        case .ready, .reloading, .status, .stopping: notification?.datagram ?? ""
        }
    }

    /// The datagram's notification, as a worker's would be; `nil` for what only the
    /// supervisor says (``mainProcess``).
    var notification: ServiceNotification? {
        switch self {
        case .ready(let summary): .ready(status: summary.text)
        case .reloading(let instant): .reloading(at: instant)
        case .status(let activity, let summary):
            .status([activity.text, summary?.text].compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: "; "))
        case .stopping(.asked(.signal(let signal))): .stopping(status: "Stopping (received \(signal.name))")
        case .stopping(.asked(.operatorAsked)): .stopping(status: "Stopping (plugin-host stop)")
        case .stopping(.told(let words)): .stopping(status: words)
        case .mainProcess, .mainProcessBack: nil
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
            return "Restarting after " + (culprits.isEmpty ? "the worker \(failure.text)" : "plugin \(culprits.map(\.name).joined(separator: ", ")) \(failure.text)")
                + "; left out: " + (leftOut.isEmpty ? "nothing" : leftOut.sorted().joined(separator: ", "))
        case .rollingBack(let rollbacks, let failure):
            return "Rolling back " + Announcement.list(rollbacks) + ": on trial, it \(failure.text)"
        case .upgrading:
            return "Upgrading: loading the changed plugins beside the running ones"
        case .upgradeFailed(let leftOut):
            return leftOut.isEmpty ? "Upgrade failed: no plugin is to blame; the running plugins keep serving"
                : "Upgrade failed: \(Announcement.names(leftOut)) left out; the running plugins keep serving"
        case .restoring:
            return "Upgrade failed: restoring the builds that ran before"
        case .upgradingHost:
            return "Upgrading the host: a new plugin-host loads beside this one"
        case .hostUpgradeFailed:
            return "Host upgrade failed: the host before serves on"
        }
    }
}

extension PluginSummary {
    /// `3 plugins running; degraded: Echo (slow); left out: Ticker (crashed ...); not added: libX.so`.
    var text: String {
        func entries(_ list: [Entry]) -> String {
            list.map { "\($0.name)\($0.version.map { " " + $0 } ?? "") (\($0.why?.text ?? ""))" }.joined(separator: ", ")
        }
        var text = "\(running) plugin\(running == 1 ? "" : "s") running"
        if !unwell.isEmpty { text += "; \(unhealthy ? "unhealthy" : "degraded"): " + entries(unwell) }
        if !runningTheBuildBefore.isEmpty { text += "; running the build before: " + entries(runningTheBuildBefore) }
        if !leftOut.isEmpty { text += "; left out: " + entries(leftOut) }
        if !notAdded.isEmpty { text += "; not added: " + notAdded.joined(separator: ", ") }
        return text
    }
}
