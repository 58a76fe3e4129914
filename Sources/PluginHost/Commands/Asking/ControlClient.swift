import PluginABI

/// The client's side of a host's control socket: one request, and the answers, each one line
/// of JSON.
enum ControlClient {
    /// Why a client got no answer.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// Nobody answers at the path.
        case noHost(path: String)
        /// The socket is there, but this user may not connect to it.
        case notAllowed(path: String)
        /// The host closed the connection before it answered, answered what is not JSON, or
        /// took longer than the client waits.
        case noAnswer(path: String)
        /// The host answered JSON this client does not read: most likely another version of
        /// plugin-host.
        case unreadable(path: String, problem: String)

        var description: String {
            switch self {
            case .noHost(let path): "no plugin-host is running at \(path)"
            case .notAllowed(let path):
                "not allowed to connect to \(path): only the user the host runs as, and root, may use its control socket"
            case .noAnswer(let path): "the plugin-host at \(path) closed the connection without an answer"
            case .unreadable(let path, let problem):
                "the plugin-host at \(path) answered what this plugin-host cannot read (\(problem)); is it another version of plugin-host?"
            }
        }
    }

    /// Sends `request` to the host at `path` and hands each answer to `each`, until the host
    /// closes the connection or `each` returns `false`.
    ///
    /// - Parameter patience: How long to wait for each answer; `nil` to wait as long as the
    ///   host takes (a stop, a reload, a follower).
    /// - Throws: ``Failure`` when no host answers there, or none answered at all.
    static func ask(_ request: ControlRequest, at path: String, patience: Duration? = nil, each: (ControlReply) -> Bool) throws(Failure) {
        let connection: Connection
        do {
            connection = try Connection.connect(to: path)
        } catch {
            throw error.isPermissionDenied ? .notAllowed(path: path) : .noHost(path: path)
        }
        defer { connection.close() }
        if let patience { connection.giveUpReceiving(after: patience) }
        guard connection.sendAll(Array((request.json + "\n").utf8)) else { throw .noAnswer(path: path) }
        var buffer: [UInt8] = []
        var answered = false
        while true {
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                guard let parsed = try? JSONParser.parse(line) else { throw .noAnswer(path: path) }
                let reply: ControlReply
                do {
                    reply = try JSONCoding.decode(ControlReply.self, from: parsed)
                } catch {
                    throw .unreadable(path: path, problem: error.description)
                }
                answered = true
                guard each(reply) else { return }
            }
            let bytes = connection.receiveBlocking(upTo: 65_536)
            guard !bytes.isEmpty else { break }
            buffer += bytes
        }
        if !answered { throw .noAnswer(path: path) }
    }

    /// Sends `request` and returns the one answer.
    static func answer(to request: ControlRequest, at path: String, patience: Duration? = nil) throws(Failure) -> ControlReply {
        var answer = ControlReply(ok: false, error: "no answer")
        try ask(request, at: path, patience: patience) { received in
            answer = received
            return false
        }
        return answer
    }
}
