/// What plugin code may change in the worker process that the host relies on: the handlers
/// of crash signals (a crash would go unreported), the handlers that keep stray signals from
/// ending the process, and descriptors 0 to 2 (a file opened later would take a closed one's
/// number and receive what is printed). The host puts them back after each phase in which
/// plugin code ran.
enum ProcessState {
    /// Puts back what plugin code changed during `phase`.
    ///
    /// - Returns: A warning for each thing put back.
    static func restore(after phase: String) -> [String] {
        var warnings: [String] = []
        let crashHandlers = FatalSignals.reassert()
        if !crashHandlers.isEmpty {
            warnings.append(
                "plugin code replaced the host's handler of \(names(crashHandlers)) during \(phase); plugin-host restored it, "
                    + "so that a crash is reported with the plugin's name (plugins must not handle crash signals)")
        }
        let defaults = StraySignals.reassert()
        if !defaults.isEmpty {
            warnings.append(
                "plugin code set \(names(defaults)) back to its default action during \(phase); plugin-host restored its handler, "
                    + "so that such a signal cannot end the host")
        }
        let closed = StandardStreams.reopenClosed()
        if !closed.isEmpty {
            warnings.append(
                "plugin code closed descriptor\(closed.count == 1 ? "" : "s") \(closed.map(String.init).joined(separator: ", ")) "
                    + "during \(phase); plugin-host opened /dev/null on \(closed.count == 1 ? "it" : "them"), so that no file "
                    + "opened later receives what is printed")
        }
        return warnings
    }

    private static func names(_ signals: [Signal]) -> String {
        signals.map(\.name).joined(separator: ", ")
    }
}
