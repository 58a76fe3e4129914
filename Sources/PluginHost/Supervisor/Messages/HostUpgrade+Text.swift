/// A host upgrade in an operator's words: the lines the hosts say, the answer to
/// `upgrade-host`, and the last host upgrade in status.
extension HostUpgradeNews {
    /// The line, after `plugin-host: `.
    var line: String {
        switch self {
        case .notNow(let refusal):
            "SIGUSR2: no host upgrade now: \(refusal)"
        case .started(let process):
            "upgrading the host: started the plugin-host now installed as the new host (pid \(process)); it loads the plugins beside this one"
        case .takingOver(let hostBefore):
            "taking over from the host before (pid \(hostBefore)): loading the plugins beside its own"
        case .passed(let process):
            "the new host (pid \(process)) passed its trial; this host ends, leaving the service to it"
        case .pluginFailed(let name):
            "giving up taking over: \(name) failed in this host's first generation; the host before serves again"
        case .givingUp(let summary):
            "giving up taking over: this host's first generation \(summary.text.isEmpty ? "ended" : summary.text); the host before serves again"
        case .ended(let outcome):
            outcome.description
        }
    }
}

extension HostUpgradeOutcome: CustomStringConvertible {
    var description: String {
        switch self {
        case .refused(let why):
            "host upgrade refused: \(why); nothing stopped"
        case .onTrial(let process, let trial):
            "the new host (pid \(process)) serves" + (trial.map { "; on trial for \(TextFormat.seconds($0)), the host before keeps what it needs to serve again" } ?? "")
        case .tookOver(let hostBefore, let alone):
            alone ? "the host before (pid \(hostBefore)) ended; this host serves on its own"
                : "took over from the host before (pid \(hostBefore)); the trial passed"
        case .failed(let why, let drained):
            "host upgrade failed: \(why); " + (drained ? "this host serves again with a new generation" : "this host serves on")
        }
    }
}

extension HostUpgradeFailure: CustomStringConvertible {
    var description: String {
        switch self {
        case .couldNotStart(let error): "the new host could not be started: \(error)"
        case .newHostEnded(.exited(let status)): "the new host exited with status \(status)"
        case .newHostEnded(.signalled(let signal)): "the new host was killed by \(signal.name)"
        }
    }
}
