/// What the host is doing, as an operator reads it: the machine's ``SupervisionMachine/State``
/// without what only the machine needs (which generations, until when). Its words are in
/// Messages (`HostState+Text`); the status document carries the value.
enum HostState: CaseIterable, Equatable, Sendable {
    case starting
    case serving
    case recovering
    case backingOff
    case upgrading
    case handingOver
    case takingOver
    /// A new plugin-host binary takes the host's place.
    case upgradingHost
    case stopping
    case finished
}

/// What a generation does for the host, as an operator reads it.
enum GenerationRole: CaseIterable, Equatable, Sendable {
    /// The first generation, getting ready.
    case starting
    /// Started after a failure, or to bring back the builds before, getting ready.
    case recovering
    /// An upgrade's or a restart's generation, loading its plugins beside the serving one.
    case loadingBeside
    /// Loaded, waiting for the generation before to stop.
    case waitingToTakeOver
    /// Bootstrapping once the generation before stopped.
    case takingOver
    case serving
    /// Asked to stop while another takes its place.
    case draining
    /// Asked to stop as the host stops.
    case stopping
    /// Killed by the supervisor, not yet reaped.
    case beingEnded
    case ended
}
