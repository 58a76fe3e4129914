/// What an operator's restart would break, found before it starts.
///
/// A restart while the host serves loads the plugin files as they are on disk beside the
/// serving generation, as an upgrade does. A file whose version is outside the range a
/// running plugin requires would take that plugin out; the serving worker refuses such an
/// upgrade when a rescan finds the file, and the supervisor refuses such a restart here,
/// before any generation starts, so the serving one is not disturbed and no build is left
/// out for it. It reads manifests only, as `check` does: no plugin code runs.
enum RestartCheck {
    /// The version mismatches the files in `search`, with `builds` selected, give the plugins
    /// of `running`.
    static func versionProblems(in search: SearchOptions, builds: BuildSelection, running: [String]) -> [Problem] {
        let running = Set(running)
        return PluginSurvey(search, builds: builds).resolution.problems.filter { problem in
            problem.code == .versionMismatch && problem.plugin.map(running.contains) == true
        }
    }

    /// The refusal an operator is given for `problems`.
    static func refusal(_ problems: [Problem]) -> String {
        problems.map(\.message).joined(separator: "; ")
            + "; not restarting: the running plugins keep serving (fix the files, then restart again)"
    }
}
