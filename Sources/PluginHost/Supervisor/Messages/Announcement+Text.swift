/// What the supervisor decided, in the words an operator reads on standard error: the one
/// place the machine's announcements become text.
extension Announcement {
    /// The whole line, without its newline: `plugin-host: restarting the plugins without ...`.
    var line: String {
        "plugin-host: " + words
    }

    private var words: String {
        switch self {
        case .restarting(let blame, let dependents, let restart):
            let without = switch blame {
            case .nobody(.rewrittenInPlace): " (no plugin is to blame: a plugin file changed under the worker; the files as they are now are loaded)"
            case .nobody(.killedFromOutside): " (no plugin is to blame: the worker was killed from outside; none is left out)"
            case .nobody(.stoppedFromOutside): " (no plugin is to blame: the worker was stopped by a signal from outside; none is left out)"
            case .unknown: " (the culprit is unknown: none is left out)"
            case .culprits(let builds): " without " + builds.map(\.label).joined(separator: ", ")
            }
            return "restarting the plugins" + without
                + (dependents.isEmpty ? "" : " and the plugins that require it (\(dependents.joined(separator: ", ")))") + restart.clause
        case .rollingBackAfterFailure(let trials, let failure, let dependents, let restart):
            return "error: \(Self.names(trials.map(\.onTrial))), on trial, \(failure.text); rolling back \(Self.list(trials)); "
                + "\(trials.count == 1 ? "it is" : "they are") left out until \(Self.theirFiles(trials.count))"
                + (dependents.isEmpty ? "" : "; the plugins that require a plugin left out are left out too (\(dependents.joined(separator: ", ")))")
                + restart.clause
        case .nothingLeftToServe(let culprits, let withDependents):
            return "not restarting: without \(culprits.isEmpty ? "it" : culprits.map(\.label).joined(separator: ", "))"
                + (withDependents ? " and the plugins that require it" : "") + " no plugin is left to serve"
        case .restartLimitReached(let recent, let policy):
            return "not restarting: \(recent) restart\(recent == 1 ? "" : "s") leaving out did not heal within \(TextFormat.seconds(policy.window)) already "
                + "(--restart-limit \(policy.limit)/\(TextFormat.seconds(policy.window)))"

        case .record(.stalled(let limit), let kept):
            return "warning: the record of what the host proved\(kept.map { " at " + $0 } ?? "") has not been written for over "
                + "\(TextFormat.seconds(limit)): its state directory does not answer (a frozen or hung file system?); the host serves on, "
                + "and writes it once the directory answers"
        case .record(.writtenAgain(let after), let kept):
            return "note: the record of what the host proved\(kept.map { " at " + $0 } ?? "") is written again, after \(TextFormat.measuredSeconds(after))"
        case .record(.unwritable(let reason), let kept):
            return "warning: cannot keep the record at \(kept ?? "its state directory"): \(reason); what the host proves from now on is forgotten when it "
                + "stops (--state DIR chooses where it is kept)"

        case .upgradeFailedBlamingNobody(let ended):
            return "error: the upgrade failed; the running plugins keep serving as they were; no plugin is to blame "
                + "(\(ended == .asMeant ? "the new worker ended" : "the new worker " + ended.text)), so none is left out: "
                + "plugin-host restart tries the upgrade again"
        case .upgradeFailed(let leftOut):
            return "error: the upgrade failed; the running plugins keep serving as they were; left out until "
                + "\(Self.theirFiles(leftOut.count)): " + leftOut.map { "\($0.nameAndVersion) (\($0.file))" }.joined(separator: ", ")
        case .upgradingAgain(let builds):
            return "upgrading again without the builds left out: " + Self.names(builds)
        case .candidateCannotRun(let plugin, let bootstrapped):
            return "error: the new worker cannot \(bootstrapped ? "bootstrap" : "load") plugin \(plugin), which runs now"
        case .candidateChangesNothing(let failed, let bootstrapped):
            let why = failed.map { "plugin \($0) did not \(bootstrapped ? "bootstrap" : "load") in it" } ?? "nothing it was to bring runs in it"
            return "error: the new worker would run only what runs now (\(why)); it gives up, and the running plugins keep serving"
        case .upgradeCouldNotStart:
            return "error: the upgrade could not start; the running plugins keep serving as they were"
        case .hostUpgrade(let news):
            return news.line
        case .upgradeFailedAfterStop(let leftOut, let restart):
            let blamed = leftOut.isEmpty ? "no plugin is to blame, so none is left out"
                : "left out until \(Self.theirFiles(leftOut.count)): " + Self.names(leftOut)
            return "error: the upgrade failed after the plugins before it had stopped; \(blamed); restoring the builds that ran before"
                + restart.clause
        case .notRestoring(let window):
            return "not restoring the builds that ran before: too many restarts leaving out did not heal within \(TextFormat.seconds(window)) (--restart-limit)"
        case .upgraded(let changes):
            return "upgraded: " + Self.upgradeDetail(changes)
        case .restartedAsAsked(let changes):
            return "restarted, as an operator asked (plugin-host restart): "
                + (changes.isEmpty ? "the same builds serve" : changes.map { change in
                    change.before.map { "\(change.build.name) \($0.version) -> \(change.build.version)" } ?? "\(change.build.nameAndVersion) now runs"
                }.joined(separator: ", "))

        case .onTrial(let changes, let limit):
            return "on trial for \(TextFormat.seconds(limit)) (--trial): "
                + changes.map { "\($0.build.nameAndVersion) (replacing \($0.before?.version ?? "nothing")\($0.beforeStaysAway.map { ", which \($0) and cannot come back" } ?? ""))" }
                .joined(separator: ", ")
                + "; a failure blamed on \(changes.count == 1 ? "it" : "one") brings back the build before; plugin-host accept or rollback ends it now"
        case .trialPassed(let builds):
            return "trial passed: " + Self.names(builds) + " permanent; the build" + (builds.count == 1 ? "" : "s") + " before let go"
        case .accepted(let builds):
            return "accepted (plugin-host accept): \(Self.names(builds)) permanent; the build\(builds.count == 1 ? "" : "s") before let go"
        case .rollingBack(let trials, let why):
            return "error: on trial, \(Self.unhealthy(why)); rolling back \(Self.list(trials)); "
                + "\(trials.count == 1 ? "it is" : "they are") left out until \(Self.theirFiles(trials.count))"
        case .rollingBackAsAsked(let rollbacks):
            return "rolling back \(Self.list(rollbacks)), as an operator asked (plugin-host rollback); "
                + rollbacks.map(\.onTrial.nameAndVersion).joined(separator: ", ") + " left out until \(Self.theirFiles(rollbacks.count))"
        case .rolledBack(let broughtBack):
            return "rolled back: " + Self.rollbackDetail(broughtBack)
        case .rollbackFailed(let trials):
            return "error: the rollback of \(Self.list(trials)) failed before it took over; the running plugins keep serving as they were"
        case .bringingBack(let builds):
            return "bringing back the builds that ran before: " + Self.names(builds)
        case .cannotBringBack(let plugin, let why):
            return "cannot bring back \(plugin): \(why)"

        case .leftOutByRecord(let builds):
            let each = builds.map { "\($0.name) \($0.version) (\($0.file)): \($0.reason.text)" }
            let names = Set(builds.map(\.name)).sorted().joined(separator: " ")
            return "left out, as the record of what this host proved says: " + each.joined(separator: "; ")
                + "; until the file changes, or plugin-host restart \(names)"

        case .awaitingTrialByRecord(let trials):
            let each = trials.map { trial in
                "\(trial.build.name) \(trial.build.version) (\(trial.build.file)), "
                    + (trial.permanent.map { "running \($0.version) from the record in its place" } ?? "no permanent build of it is kept, so it is left out until then")
            }
            return "was on trial when the host last stopped, so not run as permanent: " + each.joined(separator: "; ")
                + "; tried again as an upgrade, on trial, once the host serves"

        case .workerSuspended(let process, let signal, let running, let limit):
            return "warning: the worker process \(process) was stopped by \(signal.name)"
                + (running.isEmpty ? ", while no plugin code was known to run" : " while " + running.joined(separator: " and "))
                + (limit.map { "; unless it is resumed within \(TextFormat.seconds($0)) (--timeout) it counts as hung" } ?? "")
        case .workerResumed(let process, let after):
            return "note: the worker process \(process) was resumed after \(TextFormat.seconds(after)) stopped"
        case .cannotStartWorker(let reason):
            return "error: cannot start a worker process: \(reason)"
        case .workerFailed(let account):
            return "error: " + account.message
        case .warning(let warning):
            return "warning: " + warning
        case .handingOver(let items, let from, let to):
            return "handing generation \(to) what generation \(from)'s plugins handed over: " + items.joined(separator: ", ")

        case .stopping(.operatorAsked):
            return "asked to stop (plugin-host stop); shutting down"
        case .stopping(.signal(let signal)):
            return "received \(signal.name); shutting down (send it again after a second to exit at once)"
        case .stoppingAtOnce(let signal):
            return "received \(signal.name) again; exiting at once without finishing the shutdown"
        case .workersDidNotEnd(let count, let grace):
            return "warning: \(count == 1 ? "a worker process" : "\(count) worker processes") sent SIGKILL "
                + "did not end within \(TextFormat.seconds(grace)); ending without waiting for " + (count == 1 ? "it" : "them")
        }
    }

    /// `Counter 0.3.1 -> 0.3.0, Probe 2.0.0 -> 1.0.0`: each build on trial and the version it gives way to.
    static func list(_ trials: [Rollback]) -> String {
        trials.map { "\($0.onTrial.nameAndVersion) -> \($0.replaced.version)" }.joined(separator: ", ")
    }

    /// `Counter 0.3.1 is unhealthy (disk full)`: each build on trial its health check found
    /// unhealthy, and what the check said.
    static func unhealthy(_ builds: [Unhealthy]) -> String {
        builds.map { "\($0.build.nameAndVersion) is unhealthy (\(Unhealthy.check(said: $0.said)))" }.joined(separator: ", ")
    }

    /// `Domain 1.0.0, Persistence 2.1.0`.
    static func names(_ builds: [PublishedPlugin]) -> String {
        builds.map(\.nameAndVersion).joined(separator: ", ")
    }

    /// `Counter 0.3.0 -> 0.3.1, Probe 1.0.0 (new)`, as the line and the status's last upgrade say it.
    static func upgradeDetail(_ changes: [BuildChange]) -> String {
        guard !changes.isEmpty else { return "no plugin's build changed" }
        return changes.map { change in
            change.before.map { "\(change.build.name) \($0.version) -> \(change.build.version)" } ?? "\(change.build.nameAndVersion) (new)"
        }.joined(separator: ", ")
    }

    /// `brought back Counter 0.3.0`, or `nothing brought back`.
    static func rollbackDetail(_ broughtBack: [PublishedPlugin]) -> String {
        broughtBack.isEmpty ? "nothing brought back" : "brought back " + names(broughtBack)
    }

    private static func theirFiles(_ count: Int) -> String {
        count == 1 ? "its file changes" : "their files change"
    }
}

extension Announcement.RestartCount {
    /// `; restart 2, at once: leaving it out heals the failure, so it does not count toward
    /// --restart-limit`, or `; restart 3, 2 of at most 5 in 60 s that leaving out does not heal;
    /// in 0.2 s (3 in a row, --restart-delay)`.
    var clause: String {
        guard !healed else {
            return "; restart \(number), at once: leaving it out heals the failure, so it does not count toward --restart-limit"
        }
        return "; restart \(number), \(counted) of at most \(policy.description) that leaving out does not heal"
            + (wait > .zero ? "; in \(TextFormat.seconds(wait)) (\(inARow) in a row, --restart-delay)" : "")
    }
}

extension Announcement.CannotComeBack: CustomStringConvertible {
    /// Why a restore cannot bring a plugin's build back, as its line says.
    var description: String {
        switch self {
        case .leftOut: "the build that ran before is the one left out"
        case .cannotBeOpened(let version): "the build that ran before, \(version), can no longer be opened as it ran, and no copy of it is kept"
        case .notHeld(.fileChanged?): "its file no longer holds the build that ran (replaced, or written in place) and no copy of it is kept"
        case .notHeld(.writtenInPlace?): "its file was written in place, so the copy held reads other bytes now; the file is loaded as it is"
        case .notHeld(nil): "no build of it that ran before is held"
        }
    }
}

extension Announcement.StaysAway: CustomStringConvertible {
    /// `is left out`, `is not held`: as the trial's line says why the build before cannot come back.
    var description: String {
        switch self {
        case .leftOut: "is left out"
        case .notHeld: "is not held"
        }
    }
}

extension Announcement.Unhealthy {
    /// What a health check that found a build unhealthy said: its words, or that it failed.
    static func check(said: String?) -> String { said ?? "its health check failed" }
}
