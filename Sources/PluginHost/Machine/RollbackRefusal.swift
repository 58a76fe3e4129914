/// Why an operator's rollback of a plugin cannot be made: nothing is changed, and the client
/// is told this.
enum RollbackRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The host knows no plugin of that name: none runs, none is left out.
    case unknown(String)
    /// The plugin does not run in the generation that serves.
    case notServing(String)
    /// No permanent build of the plugin (of `version`, when asked for) is kept besides the
    /// one that runs, or the one asked for is left out.
    case noKeptBuild(String, version: String?, running: String, kept: [String])
    /// The build of `version` asked for is left out, and why: only an operator's restart of
    /// the plugin (or a change of its file) lets it be tried again.
    case leftOut(String, version: String, because: String, kept: [String])

    var description: String {
        switch self {
        case .unknown(let name):
            return "\(name): no plugin \(name) is left out or running; plugin-host status lists the plugins"
        case .notServing(let name):
            return "\(name): it is not serving; plugin-host status lists what runs"
        case .noKeptBuild(let name, let version, let running, let kept):
            let what = switch version {
            case running?: "\(running) is the build that runs"
            case let version?: "no build \(version) is kept to go back to"
            case nil: "no build before \(running) is kept"
            }
            return "\(name): " + what + (kept.isEmpty ? "" : " (kept: \(kept.joined(separator: ", ")))")
                + "; plugin-host history \(name) lists the builds kept"
        case .leftOut(let name, let version, let reason, let kept):
            return "\(name): \(version) is left out (\(reason)), and a rollback never brings back a build left out; "
                + "plugin-host restart \(name) lets it be tried again" + (kept.isEmpty ? "; no other build is kept" : "; kept: \(kept.joined(separator: ", "))")
        }
    }
}
