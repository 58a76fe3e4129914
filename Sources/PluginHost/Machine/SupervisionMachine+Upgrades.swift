/// Upgrades: a candidate loads changed plugin files beside the serving generation, which
/// hands over once it has; a candidate that fails before leaves the serving generation as it
/// was, one that fails after is replaced by the builds that ran before (a rollback).
extension SupervisionMachine {
    /// The serving generation saw plugin files change: a candidate loads the new builds
    /// beside it.
    mutating func startUpgrade(of serving: Int) {
        let running = generations[serving]?.running ?? []
        let candidate = startGeneration(
            .upgrade, runningBefore: Dictionary(running.map { ($0.name, $0.file) }, uniquingKeysWith: { first, _ in first }))
        notify(reloadingNow)
        notify(.status("Upgrading: loading the changed plugins beside the running ones"))
        state = .upgrading(serving: serving, candidate: candidate)
    }

    /// The candidate ended before the generation before was disturbed: the builds to blame
    /// are left out until their files change, and the host goes on as it was.
    ///
    /// - Returns: Whether builds changed that are not to blame: another upgrade takes them
    ///   up without those that are.
    mutating func upgradeFailed(_ candidate: Int, serving: Int) -> Bool {
        guard let ending = generations[candidate]?.ending else { return false }
        let before = generations[serving]?.running ?? []
        let suspects = failedBuilds(of: candidate, comparedTo: before)
        leaveOut(suspects, because: ending.isIntended ? "failed to load in a new worker" : ending.summary)
        guard !suspects.isEmpty else {
            say("plugin-host: error: the upgrade failed; the running plugins keep serving as they were; no plugin is to blame "
                + "(\(ending.summary.isEmpty ? "the new worker ended" : "the new worker " + ending.summary)), so none is left out: "
                + "SIGHUP or plugin-host restart tries the upgrade again")
            notify(.status("Upgrade failed: no plugin is to blame; the running plugins keep serving"))
            records.lastUpgrade = UpgradeRecord(at: now, result: .failed, detail: "no plugin to blame; the generation before serves on")
            return false
        }
        say("plugin-host: error: the upgrade failed; the running plugins keep serving as they were; left out until "
            + "\(suspects.count == 1 ? "its file changes" : "their files change"): "
            + suspects.map { "\($0.nameAndVersion) (\($0.file))" }.joined(separator: ", "))
        notify(.status(
            "Upgrade failed: \(suspects.map(\.nameAndVersion).joined(separator: ", ")) left out; the running plugins keep serving"))
        records.lastUpgrade = UpgradeRecord(
            at: now, result: .failed, detail: "left out: " + suspects.map(\.nameAndVersion).joined(separator: ", ") + "; the generation before serves on")
        let innocent = changedBuilds(of: candidate, comparedTo: before).filter { build in !suspects.contains { $0.isSameBuild(as: build) } }
        guard !innocent.isEmpty else { return false }
        say("plugin-host: upgrading again without the builds left out: " + innocent.map(\.nameAndVersion).joined(separator: ", "))
        return true
    }

    /// The new generation failed after the one before had stopped: a generation with the
    /// builds that ran before takes over, without the failing ones. Which builds it brings
    /// back is said once it starts, from what the driver found held (``started(_:bringingBack:)``).
    mutating func restore(after candidate: Int, replacing replaced: [PublishedPlugin]) {
        guard let ending = generations[candidate]?.ending else { return }
        let suspects = failedBuilds(of: candidate, comparedTo: replaced)
        let healed = ledger.healsByLeavingOut(suspects)
        leaveOut(suspects, because: ending.isIntended ? "failed to start in a new worker" : ending.summary)
        let start = restartStart(healed: healed)
        guard restarts.recordRestart(startingAt: start, within: configuration.restart, healed: healed) else {
            say("plugin-host: not restoring the builds that ran before: too many restarts within "
                + "\(TextFormat.seconds(configuration.restart.window)) (--restart-limit)")
            finish(ending.isIntended ? .failure : ending.status, .restartLimit)
            return
        }
        restoring = suspects.map(\.name)
        let blamed = suspects.isEmpty ? "no plugin is to blame, so none is left out"
            : "left out until \(suspects.count == 1 ? "its file changes" : "their files change"): " + suspects.map(\.nameAndVersion).joined(separator: ", ")
        say("plugin-host: error: the upgrade failed after the plugins before it had stopped; \(blamed); restoring the builds that ran "
            + "before; restart \(restarts.count), at most \(configuration.restart.description)" + waitClause(start - now))
        notify(.status("Upgrade failed: restoring the builds that ran before"))
        records.lastUpgrade = UpgradeRecord(
            at: now, result: .rolledBack, detail: "left out: " + (suspects.isEmpty ? "nothing" : suspects.map(\.nameAndVersion).joined(separator: ", ")))
        schedule(.restore, at: start)
    }

    /// The builds to blame for a failed upgrade, by the evidence, among those it changed: the
    /// plugin its end names, when its build is new. Nobody when the evidence clears everyone
    /// (a SIGKILL or SIGSTOP from outside while no plugin was in a short call, a file written
    /// in place, a crash record that names no plugin), or names a plugin whose build serves
    /// unchanged in the generation before. Every build that changed when the new worker gave
    /// up on the new set of files as a whole (one that is not a plugin, or one missing).
    func failedBuilds(of candidate: Int, comparedTo before: [PublishedPlugin]) -> [PublishedPlugin] {
        guard let generation = generations[candidate], let ending = generation.ending, ending.exoneration == nil else { return [] }
        let changed = changedBuilds(of: candidate, comparedTo: before)
        let named = ending.isIntended ? generation.failedPlugin.map { [$0] } : ending.culprits
        guard let named else { return changed }
        return named.compactMap { generation.plugins[number: $0] }.filter { culprit in changed.contains { $0.isSameBuild(as: culprit) } }
    }

    /// The builds `candidate` loaded that are not the builds of `before`.
    func changedBuilds(of candidate: Int, comparedTo before: [PublishedPlugin]) -> [PublishedPlugin] {
        (generations[candidate]?.plugins ?? []).filter { build in !before.contains { $0.isSameBuild(as: build) } }
    }

    /// An upgrade's generation serves in place of the builds `replaced`: its changes are said,
    /// and go on trial; a rollback's brought back the builds before.
    mutating func tookOver(_ number: Int, replacing replaced: [PublishedPlugin]) {
        if let trials = rollingBack.removeValue(forKey: number) {
            let running = generations[number]?.running ?? []
            let back = trials.filter { trial in running.contains { $0.isSameBuild(as: trial.replaced) } }
            let list = back.isEmpty ? "nothing brought back" : "brought back " + back.map(\.replaced.nameAndVersion).joined(separator: ", ")
            say("plugin-host: rolled back: " + list)
            if var upgrade = records.lastUpgrade, upgrade.result == .rolledBack {
                upgrade.detail = list + "; " + upgrade.detail
                records.lastUpgrade = upgrade
            }
        } else {
            sayUpgraded(number, replacing: replaced)
            beginTrials(of: number, replacing: replaced)
        }
        becomeServing(number)
    }

    /// Says which builds an upgrade replaced.
    mutating func sayUpgraded(_ number: Int, replacing replaced: [PublishedPlugin]) {
        let changes = (generations[number]?.running ?? []).compactMap { build -> String? in
            guard let before = replaced.first(where: { $0.name == build.name }) else { return "\(build.nameAndVersion) (new)" }
            return before.isSameBuild(as: build) ? nil : "\(build.name) \(before.version) -> \(build.version)"
        }
        let upgraded = changes.isEmpty ? "no plugin's build changed" : changes.joined(separator: ", ")
        say("plugin-host: upgraded: \(upgraded)")
        records.lastUpgrade = UpgradeRecord(at: now, result: .upgraded, detail: upgraded)
    }
}
