/// The exit statuses of `plugin-host`.
struct ExitStatus: Equatable, Sendable {
    let rawValue: Int32

    /// Every plugin bootstrapped (or, for `--help` and `--version`, the text was printed).
    static let success = ExitStatus(rawValue: 0)
    /// A graph, load, configuration or bootstrap problem; the reasons are on stderr.
    static let failure = ExitStatus(rawValue: 1)
    /// A plugin crashed (or called `exit()`) while loading or bootstrapping
    /// (`EX_SOFTWARE` of sysexits.h).
    static let crashed = ExitStatus(rawValue: 70)
    /// A plugin did not finish loading or bootstrapping within `--timeout` (as timeout(1)).
    static let timedOut = ExitStatus(rawValue: 124)
    /// The command line is wrong (`EX_USAGE` of sysexits.h).
    static let usage = ExitStatus(rawValue: 64)
}
