/// What one build of a plugin is to the host: the one meaning of a build that every view
/// reads. The ledger keeps each plugin's builds as one list, each build once with its life
/// (``BuildLedger/Known``), and moves a build only as docs/operations.md ("A build's life")
/// says: `status` shows the trial, a start runs the permanent build, and `rollback --to`
/// brings back a kept one. The record on disk is written from those lives, and
/// ``lives(onTrial:permanent:leftOut:isSame:)`` reads them back from it (`history`, a start).
enum BuildLife: Equatable, Sendable {
    /// Brought in by an upgrade: a failure blamed on it brings back the build it replaced
    /// (its trial: until when, replacing which). `nil` when it was on trial as the host last
    /// stopped, as the record says: no generation loads it until the host serves, and it is
    /// then tried again as an upgrade.
    case onTrial(BuildLedger.Trial?)
    /// The build a start runs: the newest that served and passed its trial, and is not left out.
    case permanent
    /// Permanent before the permanent one and not left out: `rollback --to` brings it back.
    case kept
    /// No generation loads it until its file changes or `plugin-host restart PLUGIN` names
    /// its plugin; why.
    case leftOut(LeaveOutReason)

    /// The life of each build of one plugin, each build once, in the order the history shows
    /// them: on trial, permanent, kept (newest first), left out (newest first). A build left
    /// out is left out whatever else the record says of it; one on trial is on trial; of the
    /// permanent builds that are neither, the newest is permanent and the others are kept.
    ///
    /// - Parameters:
    ///   - onTrial: The builds on trial.
    ///   - permanent: The builds that became permanent, the newest last.
    ///   - leftOut: The builds left out and why, the newest last.
    ///   - isSame: Whether two are the same build (the same contents).
    static func lives<Build>(
        onTrial: [Build], permanent: [Build], leftOut: [(build: Build, reason: LeaveOutReason)], isSame: (Build, Build) -> Bool
    ) -> [(build: Build, life: BuildLife)] {
        func isLeftOut(_ build: Build) -> Bool { leftOut.contains { isSame($0.build, build) } }
        var lives: [(build: Build, life: BuildLife)] = []
        func add(_ build: Build, _ life: BuildLife) {
            if !lives.contains(where: { isSame($0.build, build) }) { lives.append((build, life)) }
        }
        for build in onTrial where !isLeftOut(build) { add(build, .onTrial(nil)) }
        for build in permanent.reversed() where !isLeftOut(build) {
            add(build, lives.contains { $0.life == .permanent } ? .kept : .permanent)
        }
        for entry in leftOut.reversed() { add(entry.build, .leftOut(entry.reason)) }
        return lives
    }

    /// Whether `rollback --to` may bring the build back: it is kept, or it is the permanent
    /// build while another (on trial, or left out and still serving) runs.
    var canComeBack: Bool {
        switch self {
        case .permanent, .kept: true
        case .onTrial, .leftOut: false
        }
    }

    /// Why, of a build left out.
    var reason: LeaveOutReason? {
        if case .leftOut(let reason) = self { return reason }
        return nil
    }
}
