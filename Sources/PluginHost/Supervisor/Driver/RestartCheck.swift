/// What an operator's restart would break, read from the files on disk before it starts: the
/// fact the supervisor's machine decides the restart on, which the driver finds when the
/// machine asks (``SupervisionAction/checkRestart(client:builds:running:)``) and reports
/// (``SupervisionEvent/restartChecked(client:problems:)``).
///
/// A restart while the host serves loads the plugin files as they are on disk beside the
/// serving generation, as an upgrade does. A file whose version is outside the range a
/// running plugin requires would take that plugin out; the serving worker refuses such an
/// upgrade when a rescan finds the file, and the machine refuses such a restart. The driver
/// reads manifests only, as `check` does: no plugin code runs.
enum RestartCheck {
    /// The version mismatches the files in `search`, with `builds` selected, give the plugins
    /// of `running`, as messages.
    static func versionProblems(in search: SearchOptions, builds: BuildSelection<String>, running: [String]) -> [String] {
        let running = Set(running)
        return PluginSurvey(search, builds: builds).resolution.problems.filter { problem in
            problem.code == .versionMismatch && problem.plugin.map(running.contains) == true
        }.map(\.message)
    }
}
