/// What the machine has under way for upgrades outside the upgrade itself (``Upgrade``, which
/// lives in its state): the rescan the plugin directories' changes wait for, an upgrade asked
/// for while a generation drains (at most two generations live, so it waits for that one to
/// end), and the plugins whose held builds a restoring generation is to bring back.
struct UpgradesUnderWay: Equatable, Sendable {
    private var waitsForDrain = false
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

    /// A generation ended.
    ///
    /// - Returns: Whether the upgrade that waited for the drain begins now.
    mutating func generationEnded(stillDraining draining: Bool) -> Bool {
        guard waitsForDrain, !draining else { return false }
        waitsForDrain = false
        return true
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
