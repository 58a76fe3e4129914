/// Why the machine cannot serve an operator's request now: nothing is changed, and the client
/// is told this (its words are in Messages, `Refusal+Text`).
enum Refusal: Equatable, Sendable {
    /// The host is stopping.
    case hostStopping
    /// The host ended first, with this status.
    case hostEnded(ExitStatus)
    /// No plugin of these names is left out or running.
    case unknownPlugins([String])
    /// The generation before an upgrade beside still drains.
    case generationDrains
    /// A new generation is starting already.
    case generationStarting
    /// The host no longer serves.
    case noLongerServes
    /// A restart would leave running plugins outside their versions: the files' problems.
    case restartWouldBreak([String])
    /// No build of these plugins (of any, when empty) is on trial.
    case noTrial([String])
    /// A rollback of these plugins cannot be made.
    case cannotRollBack([RollbackRefusal])
    /// The builds a rollback would bring back (by plugin) can no longer be opened as they ran,
    /// and the record keeps no copy of them.
    case cannotOpen([PublishedPlugin])
    /// The host is not serving steadily (it is in this state): a host upgrade waits for that.
    case hostNotSteady(HostState)
    /// This host is itself a new host on trial, or another host upgrade is under way.
    case hostUpgradeUnderWay
}
