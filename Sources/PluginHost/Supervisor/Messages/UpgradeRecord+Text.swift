/// The last upgrade's outcome in the words of the status (`Last upgrade: ... rolled back: ...`).
extension UpgradeRecord.Outcome {
    /// `Counter 0.3.0 -> 0.3.1`, `left out: Probe 2.0.0; the generation before serves on`,
    /// `Counter 0.3.1 -> 0.3.0: Counter 0.3.1, on trial, crashed during the run phase: SIGSEGV; brought back Counter 0.3.0`.
    var detail: String {
        switch self {
        case .upgraded(let changes):
            return Announcement.upgradeDetail(changes)
        case .failed(let leftOut):
            return (leftOut.isEmpty ? "no plugin to blame" : "left out: " + Announcement.names(leftOut)) + "; the generation before serves on"
        case .restored(let leftOut, let broughtBack):
            return (broughtBack.map { Announcement.rollbackDetail($0) + "; " } ?? "")
                + "left out: " + (leftOut.isEmpty ? "nothing" : Announcement.names(leftOut))
        case .rolledBack(let trials, let because, let broughtBack):
            let why = switch because {
            case .failedOnTrial(let failure): ": \(Announcement.names(trials.map(\.onTrial))), on trial, \(failure.text)"
            case .unhealthyOnTrial(let why): ": on trial, \(Announcement.unhealthy(why))"
            case .asked: ", as an operator asked (plugin-host rollback)"
            }
            return Announcement.list(trials) + why + (broughtBack.map { "; " + Announcement.rollbackDetail($0) } ?? "")
        case .refused(let upgrade, let reasons):
            return upgrade + ": " + reasons.joined(separator: "; ")
        }
    }
}
