/// Why a build is left out of the generations to come: the machine's decision as a value. It
/// is said in `Messages/` (``text``): to the operator, to the worker that leaves the build out
/// (which tells it as the plugin's condition), and in the record on disk, whose words a later
/// process reads back as they were written.
enum LeaveOutReason: Equatable, Sendable {
    /// A generation's end was blamed on it: how it ended.
    case failed(WorkerEnding.Summary)
    /// A new worker, loading beside the one that serves, ended as the host meant after it
    /// failed to load the build.
    case failedToLoadBeside
    /// The same, where the new worker failed to start the build (its bootstrap, its services).
    case failedToStartBeside
    /// It was unhealthy on trial: what its health check said, when it said anything.
    case unhealthyOnTrial(String?)
    /// An operator rolled it back (`plugin-host rollback`).
    case rolledBackByOperator
    /// It was on trial when the host last stopped: it waits for the host to serve, to be
    /// tried again as an upgrade.
    case onTrialWhenTheHostStopped
    /// As a record on disk says it: the words a process before this one wrote.
    case recorded(String)
}
