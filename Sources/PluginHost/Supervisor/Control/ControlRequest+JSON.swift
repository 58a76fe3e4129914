/// The control socket's wire format of a request: one line of JSON, as a client sends it and
/// the server reads it (`{"command": "restart", "plugins": ["Ticker"]}`).
extension ControlRequest {
    /// Its name on the wire and in what is said of it: `restart`.
    var name: String {
        switch self {
        case .status: "status"
        case .wait: "wait"
        case .follow: "follow"
        case .metrics: "metrics"
        case .reload: "reload"
        case .restart: "restart"
        case .stop: "stop"
        case .accept: "accept"
        case .rollBack: "rollback"
        case .upgradeHost: "upgrade-host"
        }
    }

    /// The request named `name`, about the plugins `plugins` (and, for a rollback, the
    /// version `to`); `nil` when no request has that name.
    init?(name: String, plugins: [String], to version: String?) {
        switch name {
        case "status": self = .status
        case "wait": self = .wait
        case "follow": self = .follow
        case "metrics": self = .metrics
        case "reload": self = .reload
        case "stop": self = .stop
        case "restart": self = .restart(plugins)
        case "accept": self = .accept(plugins)
        case "rollback": self = .rollBack(plugins, to: version)
        case "upgrade-host": self = .upgradeHost
        default: return nil
        }
    }

    /// Every request's name.
    static let names = ["status", "wait", "follow", "metrics", "reload", "restart", "accept", "rollback", "stop", "upgrade-host"]

    /// The request a client sent, as JSON (`{"command": "restart", "plugins": ["Ticker"]}`),
    /// or why it is none.
    init(json bytes: [UInt8]) throws(ControlError) {
        guard let value = try? JSONParser.parse(bytes), case .object(let members) = value else {
            throw ControlError("not a JSON object; send one line such as {\"command\": \"status\"}")
        }
        guard case .string(let command)? = members["command"] else { throw ControlError("no \"command\"") }
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
        if let to = members["to"] {
            guard case .string(let value) = to, !value.isEmpty, value.utf8.count <= 256 else { throw ControlError("\"to\" must be a version") }
            version = value
        }
        guard let request = ControlRequest(name: command, plugins: names, to: version) else {
            throw ControlError("unknown command \"\(command.debugEscaped)\"; the commands are " + Self.names.joined(separator: ", "))
        }
        self = request
    }

    /// The request as a client sends it: one line of JSON.
    var json: String {
        var members: [(String, JSONOutput)] = [("command", .string(name))]
        switch self {
        case .restart, .accept, .rollBack: members.append(("plugins", .array(plugins.map(JSONOutput.string))))
        case .status, .wait, .follow, .metrics, .reload, .stop, .upgradeHost: break
        }
        if case .rollBack(_, let version?) = self { members.append(("to", .string(version))) }
        return JSONOutput.object(members).rendered()
    }
}

/// A control request that cannot be served, and why.
struct ControlError: Error, Equatable, Sendable, CustomStringConvertible {
    let message: String

    init(_ message: String) { self.message = message }

    var description: String { message }
}
