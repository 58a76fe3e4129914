/// The exit statuses of `plugin-host`.
struct ExitStatus: Equatable, Sendable {
    let rawValue: Int32

    /// Every plugin bootstrapped, ran and shut down (or, for `--help` and `--version`, the
    /// text was printed).
    static let success = ExitStatus(rawValue: 0)
    /// A graph, load, configuration, bootstrap, service or shutdown problem; the reasons
    /// are on stderr.
    static let failure = ExitStatus(rawValue: 1)
    /// Plugin code crashed, called `exit()` or otherwise ended the process
    /// (`EX_SOFTWARE` of sysexits.h).
    static let crashed = ExitStatus(rawValue: 70)
    /// Plugin code did not finish within its deadline, and the host was stopped without
    /// waiting for it (as timeout(1)).
    static let timedOut = ExitStatus(rawValue: 124)
    /// The command line is wrong (`EX_USAGE` of sysexits.h).
    static let usage = ExitStatus(rawValue: 64)
}
