#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The operators' clients, as the world knows them: who is connected and what each asked,
/// and the rules of docs/cli.md for their answers: a client still connected is answered, of
/// the kind its request asks for, and its whole answer once; what a follower is shown follows
/// what it was shown before, and is the status.
struct WorldClients {
    /// The clients still connected, by number: what each asked.
    private(set) var connected: [Int: FaultOperation.Request] = [:]
    private var last = 0
    /// The plugins each client's restart names, to forgive once the host acts on it.
    private var restartNames: [Int: [String]] = [:]
    /// The clients whose restart would break a running plugin, as the files on disk say.
    private var brokenOnDisk: Set<Int> = []
    /// What each follower was shown last.
    private var shownToFollower: [Int: HostStatus] = [:]
    /// The exit status the host answered a `stop` with, if it did.
    private(set) var stoppedAnswer: ExitStatus?

    /// A client connects and asks `request`.
    ///
    /// - Parameters:
    ///   - names: The plugins its restart names.
    ///   - brokenOnDisk: Whether its restart would break a running plugin, by the files on disk.
    /// - Returns: Its number.
    mutating func connect(asking request: FaultOperation.Request, naming names: [String]? = nil, brokenOnDisk: Bool = false) -> Int {
        last += 1
        connected[last] = request
        if let names { restartNames[last] = names }
        if brokenOnDisk { self.brokenOnDisk.insert(last) }
        return last
    }

    /// The client connected first hangs up.
    ///
    /// - Returns: Its number; `nil` when none is connected.
    mutating func firstLeaves() -> Int? {
        guard let client = connected.keys.min() else { return nil }
        connected[client] = nil
        shownToFollower[client] = nil
        return client
    }

    /// What `client` asked, while it is connected.
    func request(of client: Int) -> FaultOperation.Request? {
        connected[client]
    }

    /// The plugins `client`'s restart names.
    func names(restartedBy client: Int) -> [String]? {
        restartNames[client]
    }

    /// Whether `client`'s restart would break a running plugin, as the files on disk say.
    func restartBreaksOnDisk(_ client: Int) -> Bool {
        brokenOnDisk.contains(client)
    }

    /// The clients still waiting for an answer (a follower waits for none), in order.
    var waiting: [(client: Int, request: FaultOperation.Request)] {
        connected.sorted { $0.key < $1.key }.filter { $0.value != .follow }.map { ($0.key, $0.value) }
    }

    /// The host answers `answer` to client `id` at `now`.
    ///
    /// - Returns: What is wrong with it.
    mutating func answered(_ answer: ControlAnswer, to id: Int, at now: MonotonicInstant) -> [String] {
        guard let request = connected[id] else { return ["the host answered client \(id), which had left or had its whole answer: \(answer)"] }
        var wrong: [String] = []
        let fits = switch (request, answer) {
        case (_, .refused): request != .status && request != .follow
        case (.status, .status), (.wait, .status), (.follow, .change), (.reload, .reload), (.reload, .reloadEnded), (.restart, .restart), (.restartLeftOut, .restart), (.restartBrokenOnDisk, .restart),
             (.stop, .stopped), (.accept, .restart), (.rollback, .restart), (.acceptOne, .restart), (.rollbackOne, .restart), (.rollbackTo, .restart): true
        default: false
        }
        if !fits { wrong.append("client \(id) asked \(request) and was answered \(answer)") }
        if case .stopped(let status) = answer { stoppedAnswer = status }
        if case .change(let what, let status) = answer {
            if let before = shownToFollower[id], what.has(" -> ") {
                let from = what.split(separator: " -> ").first.map(String.init) ?? what
                if from != "\(before.state)" { wrong.append("follower \(id) was shown \(what), after being shown \(before.state)") }
            }
            shownToFollower[id] = status
        }
        if case .status(var status) = answer {
            // What followers were shown last is the status now.
            for (follower, shown) in shownToFollower.sorted(by: { $0.key < $1.key }) {
                var seen = shown
                seen.now = now
                status.now = now
                if seen != status { wrong.append("follower \(follower) was last shown \(shown.state) with other plugins or figures than the status now (\(status.state))") }
            }
        }
        // A whole answer is written, then the connection closed.
        if answer.isFinal { connected[id] = nil }
        return wrong
    }
}
