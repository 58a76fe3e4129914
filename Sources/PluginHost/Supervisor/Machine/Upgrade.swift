/// An upgrade under way: a candidate generation loads the plugin files as they are now and
/// replaces the generation that serves, beside it or after it. It exists only in the state
/// ``SupervisionMachine/State/upgrading(_:)``, and carries what only an upgrade has: its
/// candidate and phase, the trials a rollback's candidate ends, and whether the serving
/// generation asked for another upgrade meanwhile.
///
/// ```
///  loading beside ──loaded, beside: bootstraps beside ──ready──▶ (serves; the old drains)
///        └──loaded, after──▶ handing over ──old ended──▶ taking over ──ready──▶ (serves)
/// ```
struct Upgrade: Equatable, Sendable {
    /// Where the candidate is in replacing the generation before.
    enum Phase: Equatable, Sendable {
        /// The candidate loads, and may bootstrap, beside `serving`, which serves meanwhile.
        case loading(serving: Int)
        /// The candidate has loaded and waits: the generation before, `old`, drains and shuts
        /// down.
        case handingOver(old: Int)
        /// The generation before has ended: the candidate bootstraps and gets ready in place
        /// of the builds it ran.
        case takingOver(replacing: [PublishedPlugin])
    }

    /// The generation that loads the files.
    let candidate: Int
    var phase: Phase
    /// The trials the candidate ends by bringing back the builds they replaced, when it is a
    /// rollback's.
    var rollingBack: [BuildLedger.Trial]?
    /// Whether the serving generation asked for an upgrade while the candidate ran: a worker
    /// asks once for each build it sees, so the request is kept for when the candidate fails.
    var askedMeanwhile = false

    /// An upgrade whose candidate loads beside `serving`.
    init(candidate: Int, beside serving: Int, rollingBack trials: [BuildLedger.Trial]? = nil) {
        self.candidate = candidate
        phase = .loading(serving: serving)
        rollingBack = trials
    }

    /// The generation that speaks for the host: the serving one until it has stopped, then
    /// the candidate.
    var speaking: Int {
        switch phase {
        case .loading(let serving): serving
        case .handingOver(let old): old
        case .takingOver: candidate
        }
    }

    /// The generations it names: the one before, while it has not ended, and the candidate.
    var generations: [Int] {
        switch phase {
        case .loading(let before), .handingOver(let before): [before, candidate]
        case .takingOver: [candidate]
        }
    }

    /// The generation before, while it serves beside the candidate.
    var servingBeside: Int? {
        if case .loading(let serving) = phase { serving } else { nil }
    }

    /// The state as operators read it.
    var hostState: HostState {
        switch phase {
        case .loading: .upgrading
        case .handingOver: .handingOver
        case .takingOver: .takingOver
        }
    }
}
