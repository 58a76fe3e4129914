/// The supervisor's side of its control socket and of its metrics endpoint: the connections,
/// their requests and their answers, each bounded in size and in time, so that no client can
/// stall supervision. It decides nothing: a complete request becomes a
/// ``SupervisionEvent/control(client:_:)``, and the machine's answer comes back as an action.
///
/// - A request is one line of JSON, at most ``requestLimit`` bytes, within ``requestTime`` of
///   the connection; the answer is one line of JSON (a follower's, one line a change), and the
///   connection closes once it is written. The answer comes however long the request takes (a
///   reload, a stop). One request a connection: a client that sends more is dropped; one that
///   only shuts its writing side after its request still gets its answer.
/// - On the metrics endpoint, a request is `GET /metrics` (at most ``requestLimit`` bytes of
///   request line and headers); anything else gets `400` or `404` and a closed connection.
/// - At most ``clientLimit`` clients at once; more are closed as they come. An answer not
///   taken within ``answerTime``, or a follower that lets ``outputLimit`` bytes pile up, is
///   dropped.
/// - Only the user the host runs as, and root, may use the control socket; anyone else is
///   refused, and the refusal is logged.
struct ControlServer {
    static let requestLimit = 8192
    static let clientLimit = 64
    static let requestTime: Duration = .seconds(5)
    static let answerTime: Duration = .seconds(5)
    static let outputLimit = 4 << 20

    /// How a client speaks.
    enum Kind: Equatable {
        case control
        case http
    }

    private struct Client {
        let connection: Connection
        let speaks: Kind
        var received: [UInt8] = []
        var pending: [UInt8] = []
        var written = 0
        /// Whether a request came: one a connection.
        var asked = false
        /// Whether its end is still watched for reading: until it has sent its request, and
        /// after that to see it leave. A client that only shut its writing side after its
        /// request still gets its answer.
        var reading = true
        /// Close once what is pending is written.
        var closing = false
        /// When it must have sent its request, or taken its answer.
        var deadline: MonotonicInstant
        /// Why it is refused, if it is: said in answer to its request, once read, so that the
        /// request is not left unread (closing on unread bytes resets the connection, and the
        /// client would never see why).
        var refusal: String?
    }

    let socket: ControlSocket?
    let metrics: NamedSocket?
    private var clients: [Int: Client] = [:]
    private var nextClient = 1
    private let owner: UInt32
    /// When a refused connection was last logged, and how many were refused since.
    private var refusalLoggedAt: MonotonicInstant?
    private var refusedSinceLogged = 0

    /// - Parameters:
    ///   - owner: The user the host runs as, who may use the control socket (and root).
    init(socket: ControlSocket?, metrics: NamedSocket?, owner: UInt32) {
        self.socket = socket
        self.metrics = metrics
        self.owner = owner
        if let metrics { FileDescriptor(rawValue: metrics.descriptor).neverWaiting() }
    }

    /// The descriptors to wait for: the listening sockets (when `accepting`: not while another
    /// host answers on them), clients yet to ask, clients with an answer to take.
    func interests(accepting: Bool) -> [Poll.Interest] {
        var interests: [Poll.Interest] = []
        if accepting, let socket { interests.append(Poll.Interest(descriptor: socket.descriptor, writing: false)) }
        if accepting, let metrics { interests.append(Poll.Interest(descriptor: FileDescriptor(rawValue: metrics.descriptor), writing: false)) }
        for id in watchedClients {
            guard let client = clients[id] else { continue }
            interests.append(Poll.Interest(descriptor: client.connection.descriptor, writing: client.written < client.pending.count))
        }
        return interests
    }

    /// The clients waited for, in order: those with an answer to take, or still read.
    private var watchedClients: [Int] {
        clients.keys.sorted().filter { id in clients[id].map { $0.written < $0.pending.count || $0.reading } ?? false }
    }

    /// Every descriptor of the server's: the listening sockets and the connections.
    var descriptors: [FileDescriptor] {
        [socket?.descriptor, metrics.map { FileDescriptor(rawValue: $0.descriptor) }].compactMap { $0 } + clients.values.map(\.connection.descriptor)
    }

    /// When a client's time runs out next.
    var nextDeadline: MonotonicInstant? { clients.values.map(\.deadline).min() }

    /// Serves what `ready` (one flag for each of ``interests``, in order) says is ready.
    ///
    /// - Returns: The requests that came and the clients that left, as events, and lines to log.
    mutating func serve(_ ready: [Bool], accepting: Bool, at now: MonotonicInstant) -> (events: [SupervisionEvent], log: [String]) {
        var events: [SupervisionEvent] = []
        var log: [String] = []
        let ids = watchedClients
        var index = 0
        if accepting, let socket {
            if ready[index] { accept(from: socket.descriptor, speaking: .control, at: now, log: &log) }
            index += 1
        }
        if accepting, let metrics {
            if ready[index] { accept(from: FileDescriptor(rawValue: metrics.descriptor), speaking: .http, at: now, log: &log) }
            index += 1
        }
        for id in ids {
            defer { index += 1 }
            guard index < ready.count, ready[index], var client = clients[id] else { continue }
            if client.written < client.pending.count {
                guard let written = client.connection.send(client.pending, from: client.written) else {
                    events += drop(id)
                    continue
                }
                client.written += written
                if client.written == client.pending.count {
                    client.pending = []
                    client.written = 0
                    if client.closing {
                        clients[id] = client
                        events += drop(id)
                        continue
                    }
                }
                clients[id] = client
                continue
            }
            guard !client.asked else {
                // One request a connection: a client that sends more is done. One that closed
                // its end is gone; one that only shut its writing side waits for its answer.
                switch client.connection.receive(upTo: 1) {
                case .nothing: break
                case .bytes: events += drop(id)
                case .closed:
                    if client.connection.peerHasClosed {
                        events += drop(id)
                    } else {
                        clients[id]?.reading = false
                    }
                }
                continue
            }
            switch client.connection.receive(upTo: Self.requestLimit - client.received.count + 1) {
            case .nothing:
                continue
            case .closed:
                events += drop(id)
                continue
            case .bytes(let bytes):
                client.received += bytes
            }
            clients[id] = client
            if let request = request(of: id, at: now) { events.append(request) }
        }
        return (events, log)
    }

    /// Ends what has run out of time: a request not sent, an answer not taken.
    mutating func expire(at now: MonotonicInstant) -> [SupervisionEvent] {
        clients.keys.sorted().filter { clients[$0]!.deadline <= now }.flatMap { drop($0) }
    }

    /// Sends `answer` to the client `id`, written as its protocol wants; a final answer closes
    /// the connection once written.
    mutating func send(_ answer: ControlAnswer, to id: Int, document: StatusDocument?, at now: MonotonicInstant) -> [SupervisionEvent] {
        guard var client = clients[id] else { return [] }
        let bytes: [UInt8]
        switch client.speaks {
        case .control: bytes = Array((ControlReply(answer, document: document).json.rendered() + "\n").utf8)
        case .http:
            if case .metrics = answer, let document {
                bytes = Self.http(200, "OK", contentType: "text/plain; version=0.0.4; charset=utf-8", body: document.metrics)
            } else {
                bytes = Self.http(503, "Service Unavailable", body: "plugin-host cannot answer now\n")
            }
        }
        guard client.pending.count - client.written + bytes.count <= Self.outputLimit else { return drop(id) }
        client.pending = Array(client.pending[client.written...]) + bytes
        client.written = 0
        if answer.isFinal || client.speaks == .http { client.closing = true }
        client.deadline = answer.isFinal ? now + Self.answerTime : .distantFuture
        clients[id] = client
        return []
    }

    /// Closes every connection and the listening sockets; removes their files, unless
    /// another host serves on them.
    func close(removingFiles: Bool) {
        for client in clients.values { client.connection.close() }
        socket?.close(removingFile: removingFiles)
        metrics?.close(removingFile: removingFiles)
    }

    /// Writes what is pending to every client, until `deadline` at most, when the host ends.
    mutating func flush(until deadline: MonotonicInstant) {
        while MonotonicInstant.now < deadline, clients.values.contains(where: { $0.written < $0.pending.count }) {
            let waiting = clients.keys.sorted().filter { clients[$0]!.written < clients[$0]!.pending.count }
            let ready = Poll.wait(for: waiting.map { Poll.Interest(descriptor: clients[$0]!.connection.descriptor, writing: true) }, timeout: deadline - .now)
            for (id, isReady) in zip(waiting, ready) where isReady {
                guard var client = clients[id], let written = client.connection.send(client.pending, from: client.written) else {
                    _ = drop(id)
                    continue
                }
                client.written += written
                clients[id] = client
            }
        }
    }

    // MARK: Connections

    private mutating func accept(from listening: FileDescriptor, speaking: Kind, at now: MonotonicInstant, log: inout [String]) {
        // A bounded number a turn, so that a flood of connections cannot hold up the loop.
        for _ in 0..<Self.clientLimit {
            guard let connection = Connection.accept(on: listening) else { return }
            guard clients.count < Self.clientLimit else {
                _ = connection.send(Array(Self.errorLine("too many clients at once; try again").utf8), from: 0)
                connection.close()
                continue
            }
            if speaking == .control {
                let peer = connection.peer
                guard let peer, peer.user == owner || peer.user == 0 else {
                    clients[nextClient] = Client(
                        connection: connection, speaks: speaking, deadline: now + Self.requestTime,
                        refusal: "refused: only the user plugin-host runs as, and root, may use its control socket")
                    nextClient += 1
                    // Logged at most once a second, so that a flood of them cannot flood the log.
                    refusedSinceLogged += 1
                    if refusalLoggedAt.map({ now - $0 >= .seconds(1) }) ?? true {
                        let more = refusedSinceLogged > 1 ? " (and \(refusedSinceLogged - 1) more since the last said)" : ""
                        log.append("plugin-host: warning: refused a control connection from user \(peer.map { String($0.user) } ?? "unknown")"
                            + " (process \(peer.map { String($0.process.rawValue) } ?? "unknown")): only user \(owner) and root may use it\(more)")
                        refusalLoggedAt = now
                        refusedSinceLogged = 0
                    }
                    continue
                }
            }
            clients[nextClient] = Client(connection: connection, speaks: speaking, deadline: now + Self.requestTime)
            nextClient += 1
        }
    }

    private mutating func drop(_ id: Int) -> [SupervisionEvent] {
        guard let client = clients.removeValue(forKey: id) else { return [] }
        client.connection.close()
        return [.clientLeft(client: id)]
    }

    /// The request client `id` completed, if it did; a bad or too long one is answered with
    /// an error, and the connection closed.
    private mutating func request(of id: Int, at now: MonotonicInstant) -> SupervisionEvent? {
        guard var client = clients[id] else { return nil }
        switch client.speaks {
        case .control:
            guard let newline = client.received.firstIndex(of: UInt8(ascii: "\n")) else {
                if client.received.count > Self.requestLimit { fail(id, Self.errorLine("the request is longer than \(Self.requestLimit) bytes"), at: now) }
                return nil
            }
            client.asked = true
            // The host owes it an answer now, however long a reload or a stop takes; the
            // answer's own time starts when it is written.
            client.deadline = .distantFuture
            clients[id] = client
            if let refusal = client.refusal {
                fail(id, Self.errorLine(refusal), at: now)
                return nil
            }
            do {
                return .control(client: id, try ControlRequest(json: Array(client.received[..<newline])))
            } catch {
                fail(id, Self.errorLine(error.message), at: now)
                return nil
            }
        case .http:
            guard let end = Self.endOfHeaders(client.received) else {
                if client.received.count > Self.requestLimit { fail(id, Self.http(431, "Request Header Fields Too Large", body: "too long\n"), at: now) }
                return nil
            }
            client.asked = true
            // The host owes it an answer now, however long a reload or a stop takes; the
            // answer's own time starts when it is written.
            client.deadline = .distantFuture
            clients[id] = client
            let head = String(decoding: client.received[..<end], as: UTF8.self)
            let requestLine = head.split(separator: "\r\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), parts[1].hasPrefix("/") else {
                fail(id, Self.http(400, "Bad Request", body: "expected GET /metrics HTTP/1.1\n"), at: now)
                return nil
            }
            guard parts[0] == "GET" else {
                fail(id, Self.http(405, "Method Not Allowed", body: "only GET /metrics\n"), at: now)
                return nil
            }
            guard parts[1] == "/metrics" || parts[1].hasPrefix("/metrics?") else {
                fail(id, Self.http(404, "Not Found", body: "only /metrics\n"), at: now)
                return nil
            }
            return .control(client: id, .metrics)
        }
    }

    /// Answers client `id` with `text` and closes once it is written, or at `now` and the
    /// answer's time.
    private mutating func fail(_ id: Int, _ text: String, at now: MonotonicInstant) {
        fail(id, Array(text.utf8), at: now)
    }

    private mutating func fail(_ id: Int, _ bytes: [UInt8], at now: MonotonicInstant) {
        guard var client = clients[id] else { return }
        client.asked = true
        client.pending = bytes
        client.written = 0
        client.closing = true
        client.deadline = now + Self.answerTime
        clients[id] = client
    }

    /// Where a request's head ends (after the blank line), if it has.
    private static func endOfHeaders(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    // MARK: What clients read

    private static func errorLine(_ message: String) -> String {
        ControlReply(ok: false, error: message).json.rendered() + "\n"
    }

    private static func http(_ code: Int, _ reason: String, contentType: String = "text/plain; charset=utf-8", body: String) -> [UInt8] {
        let body = Array(body.utf8)
        let head = "HTTP/1.1 \(code) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}
