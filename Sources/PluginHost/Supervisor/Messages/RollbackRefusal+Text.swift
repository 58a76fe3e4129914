/// A rollback's refusal in an operator's words.
extension RollbackRefusal: CustomStringConvertible {
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
            return "\(name): \(version) is left out (\(reason.text)), and a rollback never brings back a build left out; "
                + "plugin-host restart \(name) lets it be tried again" + (kept.isEmpty ? "; no other build is kept" : "; kept: \(kept.joined(separator: ", "))")
        }
    }
}
