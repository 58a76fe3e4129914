/// `plugin-host status`, `reload`, `restart`, `accept`, `rollback` and `stop`: one request to a running host's
/// control socket, its answer printed as text or (`--json`) as JSON.
///
/// Exit statuses: 0 when the host did what was asked (a status was read, a reload applied, a
/// restarted generation serves, a trial ended, a rolled-back generation serves, the host stopped); 1 when it refused or failed, or no host
/// answers at the path.
struct ControlCommand {
    let request: ControlRequest
    let options: ControlOptions
    /// The control socket's path.
    let path: String

    /// How long `status` waits for its answer: the supervisor answers at once unless it is
    /// itself stopped.
    static let statusPatience: Duration = .seconds(10)

    private var console: Console { .direct }

    func run() -> ExitStatus {
        do {
            switch request {
            case .status, .metrics:
                let answer = try ControlClient.answer(to: request, at: path, patience: Self.statusPatience)
                guard answer.ok else { return refused(answer) }
                if case .metrics = request {
                    console.write(answer.metrics ?? "", to: .output)
                } else if let status = answer.status {
                    console.write(options.json ? status.json.rendered() + "\n" : StatusText(status: status).rendered, to: .output)
                }
                return .success
            case .follow:
                return try follow()
            case .reload, .restart, .stop, .accept, .rollBack:
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

    /// Prints the status, then one line for each change until the host ends or the user
    /// interrupts.
    private func follow() throws(ControlClient.Failure) -> ExitStatus {
        var refusal: ControlReply?
        var shown: StatusDocument?
        try ControlClient.ask(.follow, at: path) { answer in
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
        if let restart = answer.restart { return "\(request.verb): \(restart.message)\n" }
        if let stopped = answer.stopped { return "stopped: the host ended with exit status \(stopped.status)\n" }
        return answer.json.rendered() + "\n"
    }

    /// Prints why the host refused, and returns the failure status.
    private func refused(_ answer: ControlReply) -> ExitStatus {
        if let reload = answer.reload {
            console.write("plugin-host: reload refused; nothing changed:\n" + reload.reasons.map { "  \($0)\n" }.joined(), to: .error)
        } else if let restart = answer.restart {
            console.write("plugin-host: \(request.verb) failed: \(restart.message)\n", to: .error)
        } else {
            console.write("plugin-host: error: \(answer.error ?? "the host refused without a reason")\n", to: .error)
        }
        return .failure
    }
}

extension ControlRequest {
    /// `restart`, `rollback`: the command, as its outcome is reported.
    var verb: String {
        switch self {
        case .status, .follow, .metrics: "status"
        case .reload: "reload"
        case .restart: "restart"
        case .stop: "stop"
        case .accept: "accept"
        case .rollBack: "rollback"
        }
    }
}
