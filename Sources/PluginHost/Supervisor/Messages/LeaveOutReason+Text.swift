/// Why a build is left out, in the words the log, the status, `history`, the worker and the
/// record on disk say.
extension LeaveOutReason: CustomStringConvertible {
    var description: String { text }

    /// `crashed during the run phase: SIGSEGV`; `unhealthy on trial: disk full`.
    var text: String {
        switch self {
        case .failed(let summary): summary.text
        case .failedToLoadBeside: "failed to load in a new worker"
        case .failedToStartBeside: "failed to start in a new worker"
        case .unhealthyOnTrial(let said): "unhealthy on trial: " + Announcement.Unhealthy.check(said: said)
        case .rolledBackByOperator: "rolled back by an operator (plugin-host rollback)"
        case .onTrialWhenTheHostStopped: "was on trial when the host last stopped"
        case .recorded(let words): words
        }
    }
}

extension BuildSelection<LeaveOutReason> {
    /// The same selection as the worker takes it: each reason in its words.
    var said: BuildSelection<String> {
        BuildSelection<String>(
            excluded: excluded.map { excluded in
                BuildSelection<String>.Excluded(
                    name: excluded.name, file: excluded.file, identity: excluded.identity, reason: excluded.reason.text,
                    awaitsTrial: excluded.awaitsTrial)
            },
            substitutes: substitutes)
    }
}

extension WorkerEnding.Summary: CustomStringConvertible {
    var description: String { text }

    /// What happened, in a few words after the culprit's name: `crashed during the run phase:
    /// SIGSEGV`; empty when the host ended as it meant to.
    var text: String {
        switch self {
        case .asMeant: ""
        case .couldNotStart: "could not start"
        case .overran(let phase, let endingTheHost): endingTheHost ? "timed out during \(phase)" : "did not finish its \(phase) in time"
        case .stoppedItsProcess: "stopped its process"
        case .stoppedFromOutside(let signal): "was stopped by \(signal.name) from outside"
        case .keptTheHostFromStopping: "kept the host from stopping"
        case .crashed(let phase, let signal): "crashed during \(phase): \(signal.name)"
        case .calledExit(let status, let phase): "called exit(\(status)) during \(phase)"
        case .exitedDuringExit(let code): "ended the process with status \(code) during exit"
        case .exited(let code, let phase): "ended the process with status \(code) during \(phase)"
        case .ranWhenEnded(let signal, let phase): "was running when the process was ended by \(signal.name) during \(phase)"
        case .killedFromOutside: "was ended by SIGKILL from outside"
        }
    }
}

extension PluginStatus.Reason {
    /// `crashed during the run phase: SIGSEGV; left out until its file changes`.
    var text: String {
        switch self {
        case .told(let words): words
        case .leftOut(let reason): "\(reason.text); left out until its file changes"
        case .fileGone: "its file is gone from the plugin directories"
        }
    }
}
