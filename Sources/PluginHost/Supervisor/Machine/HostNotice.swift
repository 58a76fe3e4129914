/// What the host tells systemd (`sd_notify`), as values: the driver writes each as the
/// datagram systemd reads (``HostNotice/notification``, in `Messages/`).
enum HostNotice: Equatable, Sendable {
    /// The plugins that can serve do: `READY=1`, and what runs.
    case ready(PluginSummary)
    /// The host begins to reload or to replace its worker (`RELOADING=1`), at this instant.
    case reloading(at: MonotonicInstant)
    /// What the host is doing now, and what runs when that is worth saying.
    case status(Activity, PluginSummary?)
    /// This process is the service's main process from now on (`MAINPID=`): a new host that
    /// serves, or the host before, serving again.
    case mainProcess
    /// The host before is the service's main process again (`MAINPID=` with its pid): a new
    /// host that told systemd it is the main one says so before it gives up and ends.
    case mainProcessBack(to: ProcessID)
    /// The host begins to stop (`STOPPING=1`): what stops it.
    case stopping(Stopping)

    /// What stops the host.
    enum Stopping: Equatable, Sendable {
        /// A signal, or an operator, asked.
        case asked(Announcement.StopRequest)
        /// The worker that speaks for the host stops, and said why in its words.
        case told(String)
    }

    /// What the host is doing.
    enum Activity: Equatable, Sendable {
        /// What the serving worker says it did (`Added plugin Echo`), empty for nothing.
        case worker(String)
        /// A serving generation failed (`failure`, as the judgement of its end says it): a
        /// new one starts without `leftOut`, the plugins blamed (`culprits`) and those that
        /// require them.
        case restarting(culprits: [PublishedPlugin], failure: WorkerEnding.Summary, leftOut: [String])
        /// A failure on trial brings back the builds the trials replaced.
        case rollingBack([Announcement.Rollback], failure: WorkerEnding.Summary)
        /// Changed plugin files load beside the serving generation.
        case upgrading
        /// The upgrade failed and the generation before serves on, without `leftOut` (none:
        /// no plugin was to blame).
        case upgradeFailed(leftOut: [PublishedPlugin])
        /// The upgrade failed after the generation before had stopped: its builds come back.
        case restoring
        /// A new plugin-host binary takes the host's place.
        case upgradingHost
        /// The new plugin-host binary failed: this host serves on, or again.
        case hostUpgradeFailed
    }
}

/// What runs, as `STATUS=` says it: how many plugins run, those that run unwell, those that
/// run the build before in place of their file's, those left out, the files not added.
struct PluginSummary: Equatable, Sendable {
    /// A plugin, its version where it matters, and why it is named.
    struct Entry: Equatable, Sendable {
        let name: String
        var version: String?
        let why: PluginStatus.Reason?
    }

    var running = 0
    /// Running plugins that are not plainly serving; `unhealthy` when one of them is, else
    /// they are degraded.
    var unwell: [Entry] = []
    var unhealthy = false
    /// Running plugins that run the build before in place of a file whose build is left out.
    var runningTheBuildBefore: [Entry] = []
    var leftOut: [Entry] = []
    /// The file names of plugins not added.
    var notAdded: [String] = []
}
