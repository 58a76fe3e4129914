/// How a command that asks a running host shows its answer, as its entry in ``CommandTable``
/// says.
enum AnswerShown: Equatable, Sendable {
    /// The host's status, as text or (`--json`) its document.
    case status
    /// The figures, in the Prometheus text format, as the host wrote them.
    case metrics
    /// The status, then a line per change until the host ends or the user interrupts.
    case changes
    /// What a reload, a restart, an accept, a rollback or a stop did, in a line, or (`--json`)
    /// the whole answer.
    case outcome
}

/// A command that asks a running host (`plugin-host status`, `wait`, `reload`, `restart`,
/// `accept`, `rollback`, `stop`): one request to its control socket, the answer shown as the
/// command's entry says.
///
/// Exit statuses: 0 when the host did what was asked (a status was read, a reload applied, a
/// restarted generation serves, a trial ended, a rolled-back generation serves, the host stopped); 1 when it refused or failed, or no host
/// answers at the path.
struct ControlCommand {
    let request: ControlRequest
    let options: ControlOptions
    let shown: AnswerShown
    /// The control socket's path.
    let path: String

    /// How long `status` waits for its answer: the supervisor answers at once unless it is
    /// itself stopped.
    static let statusPatience: Duration = .seconds(10)

    private var console: Console { .direct }

    func run() -> ExitStatus {
        do {
            switch shown {
            case .status, .metrics:
                let answer = try self.answer()
                guard answer.ok else { return refused(answer) }
                if shown == .metrics {
                    console.write(answer.metrics ?? "", to: .output)
                } else if let status = answer.status {
                    console.write(options.json ? status.json.rendered() + "\n" : StatusText(status: status).rendered, to: .output)
                }
                return .success
            case .changes:
                return try follow()
            case .outcome:
                let answer = try ControlClient.answer(to: request, at: path)
                if options.json { console.write(answer.json.rendered() + "\n", to: .output) }
                guard answer.ok else { return options.json ? .failure : refused(answer) }
                if !options.json { console.write(Self.report(of: answer, asked: request), to: .output) }
                return .success
            }
        } catch {
            console.write("plugin-host: error: \(error)\n", to: .error)
            // A JSON reader gets an answer to parse all the same: what a refusal looks like.
            if options.json { console.write(ControlReply(ok: false, error: error.description).json.rendered() + "\n", to: .output) }
            return .failure
        }
    }

    /// The host's one answer. A client that waits for the host to serve waits for it to come
    /// up first: it asks again, every ``comingUpInterval``, while nobody answers at the path.
    private func answer() throws(ControlClient.Failure) -> ControlReply {
        while true {
            do {
                return try ControlClient.answer(to: request, at: path, patience: request.answersAtOnce ? Self.statusPatience : nil)
            } catch .noHost where request == .wait {
                ProcessControl.sleep(nanoseconds: Self.comingUpInterval)
            }
        }
    }

    /// How often `wait` looks for a host that has not come up yet: 100 ms.
    static let comingUpInterval: Int64 = 100_000_000

    /// Prints the status, then one line for each change until the host ends or the user
    /// interrupts.
    private func follow() throws(ControlClient.Failure) -> ExitStatus {
        var refusal: ControlReply?
        var shown: StatusDocument?
        try ControlClient.ask(request, at: path) { answer in
            guard answer.ok else {
                refusal = answer
                return false
            }
            if options.json {
                console.write(answer.json.rendered() + "\n", to: .output)
            } else if let status = answer.status {
                if let before = shown {
                    // What changed, as an operator reads it; nothing, when nothing did.
                    if let line = StatusChange(before: before, after: status).line {
                        console.write(TextFormat.utc(WallClock.secondsSinceEpoch) + " " + line + "\n", to: .output)
                    }
                } else {
                    console.write(StatusText(status: status).rendered + "\n", to: .output)
                }
                shown = status
            }
            return true
        }
        if let refusal { return refused(refusal) }
        if !options.json { console.write("plugin-host: the host at \(path) has ended\n", to: .error) }
        return .success
    }

    /// What a reload, a restart or a stop did, in words.
    static func report(of answer: ControlReply, asked request: ControlRequest) -> String {
        if answer.reload != nil { return "reload applied\n" }
        if let restart = answer.restart { return "\(request.name): \(restart.message)\n" }
        if let stopped = answer.stopped { return "stopped: the host ended with exit status \(stopped.status)\n" }
        return answer.json.rendered() + "\n"
    }

    /// Prints why the host refused, and returns the failure status.
    private func refused(_ answer: ControlReply) -> ExitStatus {
        if let reload = answer.reload {
            console.write("plugin-host: reload refused; nothing changed:\n" + reload.reasons.map { "  \($0)\n" }.joined(), to: .error)
        } else if let restart = answer.restart {
            console.write("plugin-host: \(request.name) failed: \(restart.message)\n", to: .error)
        } else {
            console.write("plugin-host: error: \(answer.error ?? "the host refused without a reason")\n", to: .error)
        }
        return .failure
    }
}
