/// A refusal in an operator's words, as the control client prints it after `plugin-host: `.
extension Refusal: CustomStringConvertible {
    var description: String {
        switch self {
        case .hostStopping:
            "the host is stopping"
        case .hostEnded(let status):
            "the host ended with status \(status.rawValue) first"
        case .unknownPlugins(let names):
            "no plugin \(names.joined(separator: ", ")) is left out or running; plugin-host status lists the plugins"
        case .generationDrains:
            "the generation before still drains; ask again once it has ended"
        case .generationStarting:
            "a new generation is starting already; ask again once the host serves"
        case .noLongerServes:
            "the host no longer serves; ask again once it does"
        case .restartWouldBreak(let problems):
            problems.joined(separator: "; ") + "; not restarting: the running plugins keep serving (fix the files, then restart again)"
        case .noTrial(let names):
            (names.isEmpty ? "no build is on trial" : "no build of \(names.joined(separator: ", ")) is on trial")
                + "; plugin-host status shows what is (--trial sets how long an upgrade's builds are on trial)"
        case .cannotRollBack(let problems):
            "cannot roll back " + problems.map(\.description).joined(separator: "; ") + "; nothing changed"
        case .hostNotSteady(let state):
            "the host is \(state), not serving steadily; ask again once it serves (plugin-host wait)"
        case .hostUpgradeUnderWay:
            "a host upgrade is under way; ask again once its trial has passed or failed (plugin-host status shows it)"
        case .cannotOpen(let builds):
            "cannot roll back "
                + builds.map { "\($0.name): \($0.nameAndVersion) can no longer be opened as it ran, and the record keeps no copy of it" }
                    .joined(separator: "; ") + "; nothing changed"
        }
    }
}
