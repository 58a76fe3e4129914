import PluginABI

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
                guard answer["ok"].bool == true else { return refused(answer) }
                if case .metrics = request {
                    console.write(answer["metrics"].text ?? "", to: .output)
                } else if options.json {
                    console.write(JSONOutput(answer["status"]).rendered() + "\n", to: .output)
                } else {
                    console.write(StatusText(status: answer["status"]).rendered, to: .output)
                }
                return .success
            case .follow:
                return try follow()
            case .reload, .restart, .stop, .accept, .rollBack:
                let answer = try ControlClient.answer(to: request, at: path)
                if options.json { console.write(JSONOutput(answer).rendered() + "\n", to: .output) }
                guard answer["ok"].bool == true else { return options.json ? .failure : refused(answer) }
                if !options.json { console.write(Self.report(of: answer, asked: request), to: .output) }
                return .success
            }
        } catch {
            console.write("plugin-host: error: \(error)\n", to: .error)
            return .failure
        }
    }

    /// Prints the status, then one line for each change until the host ends or the user
    /// interrupts.
    private func follow() throws(ControlClient.Failure) -> ExitStatus {
        var refusal: Setting?
        try ControlClient.ask(.follow, at: path) { answer in
            guard answer["ok"].bool == true else {
                refusal = answer
                return false
            }
            if options.json {
                console.write(JSONOutput(answer).rendered() + "\n", to: .output)
            } else if answer["change"].text == "following" {
                console.write(StatusText(status: answer["status"]).rendered + "\n", to: .output)
            } else {
                console.write(Self.changeLine(answer), to: .output)
            }
            return true
        }
        if let refusal { return refused(refusal) }
        if !options.json { console.write("plugin-host: the host at \(path) has ended\n", to: .error) }
        return .success
    }

    /// `2026-11-25T20:01:02Z serving -> recovering: generation 4 recovering; Ticker left out`.
    static func changeLine(_ answer: Setting) -> String {
        let status = answer["status"]
        var line = TextFormat.utc(WallClock.secondsSinceEpoch) + " " + (answer["change"].text ?? "changed") + ":"
        let generations = status["generations"].list.map { generation in
            "generation \(generation["number"].whole.map(String.init) ?? "?") \(generation["role"].text ?? "?")"
        }
        line += " " + (generations.isEmpty ? "no generation runs" : generations.joined(separator: ", "))
        let leftOut = status["plugins"].list.filter { $0["state"].text == "left out" }.compactMap { $0["name"].text }
        if !leftOut.isEmpty { line += "; left out: " + leftOut.joined(separator: ", ") }
        if status["state"].text == "backing off", let seconds = status["backingOffSeconds"].number {
            line += "; next start in \(StatusText.span(seconds))"
        }
        return line + "\n"
    }

    /// What a reload, a restart or a stop did, in words.
    static func report(of answer: Setting, asked request: ControlRequest) -> String {
        if answer["reload"] != .null { return "reload applied\n" }
        if case let restart = answer["restart"], restart != .null { return "\(request.verb): \(restart["message"].text ?? "done")\n" }
        if let status = answer["stopped"]["status"].whole { return "stopped: the host ended with exit status \(status)\n" }
        return JSONOutput(answer).rendered() + "\n"
    }

    /// Prints why the host refused, and returns the failure status.
    private func refused(_ answer: Setting) -> ExitStatus {
        if answer["reload"] != .null {
            let reasons = answer["reload"]["reasons"].list.compactMap(\.text)
            console.write("plugin-host: reload refused; nothing changed:\n" + reasons.map { "  \($0)\n" }.joined(), to: .error)
        } else if case let restart = answer["restart"], restart != .null {
            console.write("plugin-host: \(request.verb) failed: \(restart["message"].text ?? "no reason given")\n", to: .error)
        } else {
            console.write("plugin-host: error: \(answer["error"].text ?? "the host refused without a reason")\n", to: .error)
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
