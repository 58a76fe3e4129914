/// How the supervisor writes the status: the machine's ``HostStatus`` with the facts only its
/// driver sees.
extension StatusDocument {
    /// What the driver adds to the machine's status.
    struct Facts {
        /// The supervisor's process id.
        var process: ProcessID
        /// Each live generation's worker process.
        var workers: [Int: ProcessID] = [:]
        /// The sockets the host holds for its plugins: name and address.
        var sockets: [(name: String, address: String)] = []
        var control: String?
        var directories: [String] = []
        /// Where the record of what the host proved is kept.
        var record: String?
        /// The binary the supervisor runs, and the file at its path now.
        var host: Host?
        /// The build id of each build that runs, by that build, where its file has one.
        var buildIDs: [FileIdentity: String] = [:]
        /// Each plugin file's build on disk now, by path; `nil` when it is gone.
        var onDisk: [String: FileIdentity?] = [:]
        /// Seconds since the Unix epoch at the instant ``monotonicNow``: to write instants as
        /// wall-clock times.
        var wallNow: Double
        var monotonicNow: MonotonicInstant
        /// The supervisor's processor time so far, and the events its state machine took.
        var supervisorCPUSeconds = 0.0
        var supervisorEvents = 0

        /// `instant` on the wall clock.
        func wallTime(_ instant: MonotonicInstant) -> WallTime {
            WallTime(secondsSinceEpoch: wallNow - StatusDocument.seconds(monotonicNow - instant))
        }

        /// Whether the file on disk now is another build than `build`, which runs from it;
        /// `nil` when no build runs.
        func fileChanged(_ build: FileIdentity?, file: String?) -> Bool? {
            guard let build, let file, let onDisk = onDisk[file] else { return nil }
            return onDisk.map { !$0.hasSameContents(as: build) } ?? true
        }
    }

    init(status: HostStatus, facts: Facts) {
        let now = status.now
        func since(_ instant: MonotonicInstant) -> Double { Self.rounded(Self.seconds(now - instant)) }
        func until(_ instant: MonotonicInstant) -> Double { Self.rounded(Self.seconds(max(.zero, instant - now))) }
        self.init(
            schema: Self.currentSchema,
            pid: Int(facts.process.rawValue),
            state: status.state,
            startedAt: facts.wallTime(status.startedAt),
            uptimeSeconds: since(status.startedAt),
            backingOffUntil: status.backingOffUntil.map(facts.wallTime),
            backingOffSeconds: status.backingOffUntil.map(until),
            control: facts.control,
            directories: facts.directories,
            generations: status.generations.map { generation in
                Generation(
                    number: generation.number, pid: facts.workers[generation.number].map { Int($0.rawValue) }, role: generation.role,
                    cause: generation.cause, startedAt: facts.wallTime(generation.startedAt), ageSeconds: since(generation.startedAt),
                    readyAt: generation.readyAt.map(facts.wallTime))
            },
            plugins: status.plugins.map { plugin in
                Plugin(
                    name: plugin.name, state: plugin.state, reason: plugin.reason?.text, version: plugin.version, file: plugin.file,
                    build: plugin.build.map { build in
                        Build(
                            size: Int(build.size), modified: WallTime(secondsSinceEpoch: Double(build.modificationNanoseconds) / 1e9),
                            device: Int(build.device), inode: Int(build.inode), buildID: facts.buildIDs[build])
                    },
                    fileChanged: facts.fileChanged(plugin.build, file: plugin.file),
                    held: plugin.held,
                    from: plugin.origin,
                    trial: plugin.trial.map { trial in
                        Trial(version: trial.version, replaces: trial.replaces, until: facts.wallTime(trial.until), secondsLeft: until(trial.until),
                              canRollBack: trial.canRollBack)
                    },
                    requires: plugin.requires, failures: plugin.failures,
                    lastFailure: plugin.lastFailure.map { Failure(at: facts.wallTime($0.at), version: $0.version, summary: $0.summary.text) },
                    healthCheckSeconds: status.healthDurations[plugin.name])
            },
            restarts: Restarts(
                used: status.restarts.used, limit: status.restarts.limit, windowSeconds: Self.seconds(status.restarts.window),
                total: status.restarts.total, inARow: status.restarts.inARow, healed: status.restarts.healed,
                nextDelaySeconds: Self.rounded(Self.seconds(status.restarts.nextDelay)), enabled: status.restarts.enabled),
            sockets: facts.sockets.map { Socket(name: $0.name, address: $0.address) },
            lastReload: status.lastReload.map { Reload(at: facts.wallTime($0.at), applied: $0.applied, reasons: $0.reasons) },
            lastUpgrade: status.lastUpgrade.map { Upgrade(at: facts.wallTime($0.at), result: $0.result, detail: $0.outcome.detail) },
            reloads: Reloads(applied: status.reloadsApplied, refused: status.reloadsRefused),
            warnings: status.warnings,
            supervisor: SupervisorCost(cpuSeconds: (facts.supervisorCPUSeconds * 1e6).rounded() / 1e6, events: facts.supervisorEvents),
            record: facts.record,
            recordStalledSeconds: status.recordStalledSince.map(since),
            host: facts.host.map { host in
                var host = host
                host.lastUpgrade = status.lastHostUpgrade.map {
                    HostUpgradeDocument(at: facts.wallTime($0.at), ok: $0.outcome.succeeded, detail: $0.outcome.description)
                }
                return host
            })
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Seconds to the millisecond, as the document gives spans.
    private static func rounded(_ seconds: Double) -> Double {
        (seconds * 1000).rounded() / 1000
    }
}
