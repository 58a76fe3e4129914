/// What the machine has under way for upgrades beyond its state: the rescan the plugin
/// directories' changes wait for, an upgrade asked for while a
/// generation drains (at most two generations live, so it waits for that one to end), the
/// trials each generation loading beside the serving one rolls back once it serves, and the
/// plugins whose held builds a restoring generation is to bring back.
struct UpgradesUnderWay: Equatable, Sendable {
    private var waitsForDrain = false
    /// Whether the serving generation asked for an upgrade while a candidate was under way: a
    /// worker asks once for each build it sees, so the machine keeps the request.
    private var askedMeanwhile = false
    private var rollbacks: [Int: [BuildLedger.Trial]] = [:]
    private var restoring: [String] = []
    /// When to tell the serving worker to rescan the plugin directories: once they have been
    /// quiet for a while, so that a file being copied in is complete.
    private(set) var nextRescan: MonotonicInstant?

    /// The plugin directories changed at `now`: a rescan is due once they have been `quiet`
    /// that long.
    mutating func directoriesChanged(at now: MonotonicInstant, quiet: Duration) {
        nextRescan = now + quiet
    }

    /// Whether the rescan is due at `now`: asked once.
    mutating func rescanIfDue(at now: MonotonicInstant) -> Bool {
        guard let due = nextRescan, now >= due else { return false }
        nextRescan = nil
        return true
    }

    /// The serving generation asked for an upgrade.
    ///
    /// - Returns: Whether it begins now: not while a generation drains, but once it ended.
    mutating func asked(whileDraining draining: Bool) -> Bool {
        if draining { waitsForDrain = true }
        return !draining
    }

    /// The serving generation asked for an upgrade while a candidate was under way.
    mutating func askedWhileCandidateRuns() {
        askedMeanwhile = true
    }

    /// A generation starts, loading the files as they are now: any request before is met.
    mutating func generationStarts() {
        askedMeanwhile = false
    }

    /// The candidate failed and the serving generation serves on.
    ///
    /// - Returns: Whether an upgrade it asked for meanwhile begins now.
    mutating func candidateFailed() -> Bool {
        defer { askedMeanwhile = false }
        return askedMeanwhile
    }

    /// A generation ended.
    ///
    /// - Returns: Whether the upgrade that waited for the drain begins now.
    mutating func generationEnded(stillDraining draining: Bool) -> Bool {
        guard waitsForDrain, !draining else { return false }
        waitsForDrain = false
        return true
    }

    /// Generation `candidate`, started beside the serving one, rolls back `trials`.
    mutating func rollBack(_ trials: [BuildLedger.Trial], by candidate: Int) {
        rollbacks[candidate] = trials
    }

    /// The trials generation `candidate` rolls back, if it is a rollback's; asked once, when
    /// it takes over or ends.
    mutating func rollback(by candidate: Int) -> [BuildLedger.Trial]? {
        rollbacks.removeValue(forKey: candidate)
    }

    /// The next restoring generation is to bring back the held builds of `plugins`.
    mutating func restore(_ plugins: [String]) {
        restoring = plugins
    }

    /// A restoring generation started: the plugins it was to bring back, asked once.
    mutating func restoringStarted() -> [String] {
        defer { restoring = [] }
        return restoring
    }
}
