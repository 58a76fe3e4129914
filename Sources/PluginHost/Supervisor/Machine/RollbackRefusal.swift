/// Why an operator's rollback of a plugin cannot be made: nothing is changed, and the client
/// is told this (its words are in Messages, `RollbackRefusal+Text`).
enum RollbackRefusal: Error, Equatable, Sendable {
    /// The host knows no plugin of that name: none runs, none is left out.
    case unknown(String)
    /// The plugin does not run in the generation that serves.
    case notServing(String)
    /// No permanent build of the plugin (of `version`, when asked for) is kept besides the
    /// one that runs, or the one asked for is left out.
    case noKeptBuild(String, version: String?, running: String, kept: [String])
    /// The build of `version` asked for is left out, and why: only an operator's restart of
    /// the plugin (or a change of its file) lets it be tried again.
    case leftOut(String, version: String, because: LeaveOutReason, kept: [String])
}
