/// What the supervisor remembers for operators, beyond the builds: when the host started, the
/// warnings in force, the last reload and upgrade, how many reloads were applied and refused,
/// and how long each plugin took to answer its last health check.
struct HostRecords: Equatable, Sendable {
    /// When the host started.
    let startedAt: MonotonicInstant
    /// The warnings in force, by what they are about: those the generation that speaks for the
    /// host told; each was said when it first applied.
    private(set) var warnings: [String: [String]] = [:]
    private(set) var lastReload: ReloadRecord?
    private(set) var lastUpgrade: UpgradeRecord?
    /// The last upgrade of the host's own binary, and when it ended.
    private(set) var lastHostUpgrade: HostUpgradeRecord?
    private(set) var reloadsApplied = 0
    private(set) var reloadsRefused = 0
    /// How long each plugin took to answer its last health check, in seconds.
    private(set) var healthDurations: [String: Double] = [:]

    init(startedAt: MonotonicInstant) {
        self.startedAt = startedAt
    }

    /// The warnings in force, in a stable order.
    var warningsInForce: [String] { warnings.keys.sorted().flatMap { warnings[$0]! } }

    /// Takes the warnings that hold now about `topic`, as the generation that speaks for the
    /// host told them.
    ///
    /// - Returns: Those not in force before, to be said: a warning is said when it first
    ///   applies, or changes, not again while it holds.
    mutating func warn(about topic: String, _ list: [String]) -> [String] {
        let inForce = Set(warnings.values.joined())
        warnings[topic] = list.isEmpty ? nil : list
        return list.filter { !inForce.contains($0) }
    }

    /// A generation serves in place of the one before: the warnings in force are those it
    /// told, and every other ends (its plugins started again with the configuration as it is).
    ///
    /// - Returns: Those not in force before, to be said.
    mutating func takeWarnings(of told: [String: [String]]) -> [String] {
        let inForce = Set(warnings.values.joined())
        warnings = told.filter { !$0.value.isEmpty }
        return warningsInForce.filter { !inForce.contains($0) }
    }

    /// An upgrade (or a rollback, or a restore after a failed one) ended at `instant` with
    /// `outcome`: it is the last upgrade.
    mutating func upgradeEnded(at instant: MonotonicInstant, _ outcome: UpgradeRecord.Outcome) {
        lastUpgrade = UpgradeRecord(at: instant, outcome: outcome)
    }

    /// A host upgrade ended at `instant` with `outcome`.
    mutating func hostUpgradeEnded(at instant: MonotonicInstant, _ outcome: HostUpgradeOutcome) {
        lastHostUpgrade = HostUpgradeRecord(at: instant, outcome: outcome)
    }

    /// The restore or rollback that ended last brought back `builds`, now that its generation
    /// started or took over.
    mutating func broughtBack(_ builds: [PublishedPlugin]) {
        lastUpgrade?.broughtBack(builds)
    }

    /// The generation that speaks for the host told how long each plugin took to answer its
    /// last health check.
    mutating func tookHealthChecks(_ durations: [String: Double]) {
        healthDurations = durations
    }

    /// A reload's outcome.
    mutating func reloaded(at instant: MonotonicInstant, applied: Bool, reasons: [String]) {
        lastReload = ReloadRecord(at: instant, applied: applied, reasons: reasons)
        if applied { reloadsApplied += 1 } else { reloadsRefused += 1 }
    }
}
