/// What an operator asks a running host through its control socket (`plugin-host status`,
/// `reload`, `restart`, `stop`): one more input of the supervisor's state machine.
enum ControlRequest: Equatable, Sendable {
    /// The host's state, its generations, its plugins.
    case status
    /// The status now, then each change of it as it happens, until the client leaves.
    case follow
    /// The figures of `status --metrics`.
    case metrics
    /// What SIGHUP does, answered with whether the reload was applied.
    case reload
    /// A new generation; the plugins named that are left out are tried again first.
    /// `brokenOnDisk` is not sent by the client: it is what the driver found the files on disk
    /// would break (``RestartCheck``), the evidence the machine decides the restart on.
    case restart([String], brokenOnDisk: [String] = [])
    /// What SIGTERM does, answered with the host's exit status once it has ended.
    case stop

    /// The request a client sent, as JSON (`{"command": "restart", "plugins": ["Ticker"]}`),
    /// or why it is none.
    init(json bytes: [UInt8]) throws(ControlError) {
        guard let value = try? JSONParser.parse(bytes), case .object(let members) = value else {
            throw ControlError("not a JSON object; send one line such as {\"command\": \"status\"}")
        }
        guard case .string(let command)? = members["command"] else { throw ControlError("no \"command\"") }
        switch command {
        case "status": self = .status
        case "follow": self = .follow
        case "metrics": self = .metrics
        case "reload": self = .reload
        case "stop": self = .stop
        case "restart":
            var names: [String] = []
            if let plugins = members["plugins"] {
                guard case .array(let list) = plugins else { throw ControlError("\"plugins\" must be a list of names") }
                for item in list {
                    guard case .string(let name) = item, !name.isEmpty, name.utf8.count <= 256 else {
                        throw ControlError("\"plugins\" must be a list of names")
                    }
                    names.append(name)
                }
            }
            self = .restart(names)
        default:
            throw ControlError("unknown command \"\(command.debugEscaped)\"; the commands are status, follow, metrics, reload, restart, stop")
        }
    }

    /// The request as a client sends it: one line of JSON.
    var json: String {
        switch self {
        case .status: #"{"command":"status"}"#
        case .follow: #"{"command":"follow"}"#
        case .metrics: #"{"command":"metrics"}"#
        case .reload: #"{"command":"reload"}"#
        case .stop: #"{"command":"stop"}"#
        case .restart(let names, _):
            JSONOutput.object([("command", .string("restart")), ("plugins", .array(names.map(JSONOutput.string)))]).rendered()
        }
    }
}

/// A control request that cannot be served, and why.
struct ControlError: Error, Equatable, Sendable, CustomStringConvertible {
    let message: String

    init(_ message: String) { self.message = message }

    var description: String { message }
}

/// What the supervisor's state machine answers a control request with.
enum ControlAnswer: Equatable, Sendable {
    /// The host's status now.
    case status(HostStatus)
    /// A change, in a few words, and the status after it: for a client that follows.
    case change(String, HostStatus)
    /// The status, for its figures.
    case metrics(HostStatus)
    /// The outcome of a reload.
    case reload(applied: Bool, reasons: [String])
    /// The outcome of a restart: whether the new generation serves, and what happened.
    case restart(ok: Bool, message: String)
    /// The host ended, with this status.
    case stopped(ExitStatus)
    /// The request cannot be served now, and why.
    case refused(String)

    /// The status the answer carries, if it carries one.
    var carriedStatus: HostStatus? {
        switch self {
        case .status(let status), .change(_, let status), .metrics(let status): status
        case .reload, .restart, .stopped, .refused: nil
        }
    }

    /// Whether the client has its whole answer: the connection can close.
    var isFinal: Bool {
        if case .change = self { false } else { true }
    }
}
