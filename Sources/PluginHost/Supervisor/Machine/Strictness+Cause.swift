/// The machine's decision of how strict a generation is (the table of ``Strictness``), from
/// why it starts and how the host runs.
extension Strictness {
    /// The strictness of a generation started for `cause`, on a host that watches its plugin
    /// directories (`--watch`) or not, and keeps going past a failure (`--keep-going`) or not.
    init(for cause: GenerationPlan.Cause, watching: Bool, keepingGoing: Bool) {
        switch cause {
        case .start, .hostUpgrade:
            admission = keepingGoing ? .leaveFailuresOut : watching ? .leaveBadFilesOut : .allOrNothing
            badFilesNotAdded = watching
            goesOnFromServing = false
            leavesUnreadyOut = false
        case .upgrade, .operatorRestart, .restart, .restore:
            admission = .leaveFailuresOut
            badFilesNotAdded = true
            goesOnFromServing = true
            leavesUnreadyOut = cause == .restart || cause == .restore
        }
    }
}
