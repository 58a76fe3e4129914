/// The control socket's wire format of a request: one line of JSON, as a client sends it and
/// the server reads it (`{"command": "restart", "plugins": ["Ticker"]}`).
extension ControlRequest {
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
        case "restart", "accept", "rollback":
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
            var version: String?
            if let to = members["to"], command == "rollback" {
                guard case .string(let value) = to, !value.isEmpty, value.utf8.count <= 256 else { throw ControlError("\"to\" must be a version") }
                version = value
            }
            self = command == "restart" ? .restart(names) : command == "accept" ? .accept(names) : .rollBack(names, to: version)
        default:
            throw ControlError(
                "unknown command \"\(command.debugEscaped)\"; the commands are status, follow, metrics, reload, restart, accept, rollback, stop")
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
        case .restart(let names): Self.json("restart", names)
        case .accept(let names): Self.json("accept", names)
        case .rollBack(let names, let version): Self.json("rollback", names, to: version)
        }
    }

    private static func json(_ command: String, _ names: [String], to version: String? = nil) -> String {
        JSONOutput.object(
            [("command", .string(command)), ("plugins", .array(names.map(JSONOutput.string)))] + (version.map { [("to", JSONOutput.string($0))] } ?? [])
        ).rendered()
    }
}

/// A control request that cannot be served, and why.
struct ControlError: Error, Equatable, Sendable, CustomStringConvertible {
    let message: String

    init(_ message: String) { self.message = message }

    var description: String { message }
}
