/// The exit statuses of `plugin-host`.
struct ExitStatus: Equatable, Sendable {
    let rawValue: Int32

    /// Every plugin bootstrapped (or, for `--help` and `--version`, the text was printed).
    static let success = ExitStatus(rawValue: 0)
    /// A graph, load, configuration or bootstrap problem; the reasons are on stderr.
    static let failure = ExitStatus(rawValue: 1)
    /// The command line is wrong (`EX_USAGE` of sysexits.h).
    static let usage = ExitStatus(rawValue: 64)
}
