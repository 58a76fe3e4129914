/// What a worker generation is started with: the machine's plan for it (which builds it
/// leaves out and why, in words; what it loads instead; whether it waits before
/// bootstrapping; how strict it is), and what the supervisor's driver gives it beside (the
/// sockets plugins obtain, its end of the hand-off channel, whether systemd listens).
///
/// The worker is forked from the supervisor, so the plan reaches it as a value in its
/// memory: nothing is encoded or sent.
struct WorkerPlan: Equatable, Sendable {
    /// 1 for the first generation, counting up.
    let number: Int
    /// The builds it leaves out, each with why in the words it tells, and the held builds it
    /// loads in their place.
    var builds: BuildSelection<String>
    /// Whether it reports what it loaded, then what it bootstrapped, and waits each time for
    /// the supervisor's word (``CandidateVerdict``): a generation loaded beside the serving one.
    let waitsBeforeBootstrap: Bool
    /// How much its start may leave out and still serve, as the machine decided.
    let strictness: Strictness
    /// The sockets the host listens on, by name, which plugins obtain from the chain.
    var sockets: [String: Int32] = [:]
    /// Its end of the channel the supervisor passes on what the generation before handed
    /// over, and takes what this one hands over as it stops; -1 for none.
    var handOff: Int32 = -1
    /// Whether systemd listens to the host's notifications: when it does not, the worker
    /// keeps to itself those that only systemd needs.
    var systemdListens = false
}
