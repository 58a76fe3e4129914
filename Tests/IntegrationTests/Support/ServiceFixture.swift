import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A service as an operator runs one, for the tests of worker generations: the demo
/// application, the Echo fixture answering on a named socket, and the Ticker fixture, a
/// service told by its settings to crash (in its service, a health check or a reload) once
/// a trigger file exists. Everything the plugins do goes to one event log.
struct ServiceFixture {
    let directory: PluginDirectoryFixture
    let log: EventLog
    /// Creating this file makes Ticker crash.
    let trigger: URL
    /// The Unix socket Echo answers on: short, as a socket's path must be.
    let socket: String

    /// - Parameters:
    ///   - crashIn: Where Ticker crashes once triggered: `run`, `health` or `reload`.
    ///   - ticker: Whether Ticker is installed from the start.
    ///   - tickerSettings: More of Ticker's settings, as `"key": value` entries.
    ///   - echoSettings: More of Echo's settings, as `"key": value` entries.
    ///   - settings: More plugins' settings, as `"Name": {...}` entries.
    init(crashIn: String = "run", ticker: Bool = true, tickerSettings: String = "", echoSettings: String = "", settings: [String] = []) throws {
        directory = try PluginDirectoryFixture.demo(fixtures: ticker ? ["Echo", "Ticker"] : ["Echo"])
        log = EventLog(directory.root.appending(path: "events.log"))
        trigger = directory.root.appending(path: "crash-now")
        socket = Scratch.socketPath(named: "echo")
        try directory.configure(([
            #""Ticker": {"log": "\#(log.file.path)", "trigger": "\#(trigger.path)", "crashIn": "\#(crashIn)"\#(tickerSettings.isEmpty ? "" : ", " + tickerSettings)}"#,
            #""Echo": {"log": "\#(log.file.path)"\#(echoSettings.isEmpty ? "" : ", " + echoSettings)}"#,
        ] + settings).joined(separator: ", "))
    }

    /// Starts the host on the directory, listening on ``socket`` as `echo` unless told
    /// otherwise, with a notification socket as systemd's.
    ///
    /// - Parameters:
    ///   - spelling: How `--dir` names the plugin directory, when not by its absolute path.
    ///   - workingDirectory: Where the host starts, for a relative `spelling`.
    ///   - executable: The plugin-host binary to start.
    func start(_ extra: [String] = [], listening: Bool = true, environment: [String: String] = [:], spelling: String? = nil,
               in workingDirectory: URL? = nil, executable: String = Repository.host.path) throws -> (RunningHost, NotifyListener) {
        let listener = try NotifyListener()
        let arguments = ["--dir", spelling ?? directory.plugins.path, "--config", directory.configuration.path]
            + (listening ? ["--listen", "echo=\(socket)"] : []) + extra
        let host = try RunningHost(
            executable, arguments, environment: environment.merging(["NOTIFY_SOCKET": listener.address]) { new, _ in new },
            in: workingDirectory)
        return (host, listener)
    }

    /// The path of a plugin's file in the directory.
    func file(_ name: String) -> URL { directory.plugins.appending(path: "lib\(name).so") }

    /// `NAME (FILE)`, as the host names a plugin of this directory.
    func label(_ name: String) -> String { "\(name) (\(file(name).path))" }

    /// How a plugin file is replaced.
    enum Replacement {
        /// Copied to a temporary name beside it, then renamed over it (`mv`).
        case rename
        /// With `install -m 755`, as `make install` does.
        case install
    }

    /// Puts the fixture plugin `fixture` at `name`'s file: a new file, another inode.
    func replace(_ name: String, with fixture: String, by replacement: Replacement = .rename) throws {
        try replace(name, withFile: try Fixtures.plugin(fixture), by: replacement)
    }

    /// Puts `source` at `name`'s file: a new file, another inode.
    func replace(_ name: String, withFile source: URL, by replacement: Replacement = .rename) throws {
        let target = file(name)
        switch replacement {
        case .rename:
            let staging = directory.root.appending(path: "staging-\(UUID().uuidString).so")
            try FileManager.default.copyItem(at: source, to: staging)
            try directory.trust(staging)
            guard rename(staging.path, target.path) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        case .install:
            let result = try Command.run("/usr/bin/install", ["-m", "755", source.path, target.path])
            guard result.status == 0 else { throw CommandFailure(command: "install", result: result) }
        }
    }

    /// A copy of the fixture `fixture`, outside the plugin directory, whose manifest says
    /// `manifest` instead.
    func build(of fixture: String, manifest: String) throws -> URL {
        let copy = directory.root.appending(path: "build-\(UUID().uuidString).so")
        let manifestFile = directory.root.appending(path: "manifest-\(UUID().uuidString).json")
        try Data(manifest.utf8).write(to: manifestFile)
        let result = try Command.run("/usr/bin/env", [
            "objcopy", "--update-section", ".plugin_host_manifest=\(manifestFile.path)", try Fixtures.plugin(fixture).path, copy.path,
        ])
        guard result.status == 0 else { throw CommandFailure(command: "objcopy", result: result) }
        try directory.trust(copy)
        return copy
    }

    /// The banana store's count of peeled bananas, as the demo keeps it on disk.
    var peeledBananas: Int? {
        guard let data = try? Data(contentsOf: directory.data.appending(path: "bananas.json")),
            let store = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let bananas = store["bananas"] as? [[String: Any]]
        else { return nil }
        return bananas.filter { $0["isPeeled"] as? Bool == true }.count
    }

    /// Asks Echo: the worker process that answered, or why it could not.
    func echo(_ line: String = "ping") -> EchoAnswer {
        EchoClient.ask(socket, line)
    }
}

/// What a connection to Echo got.
enum EchoAnswer: Equatable {
    /// The worker process that answered.
    case answered(worker: Int32)
    /// `connect` failed with this errno (`ECONNREFUSED`: nobody listened).
    case refused(errno: Int32)
    /// Connected, but no answer came (reset, closed, or too slow).
    case unanswered

    var worker: Int32? {
        if case .answered(let worker) = self { return worker }
        return nil
    }
}

/// A client of the Echo fixture, on a Unix socket.
enum EchoClient {
    /// Connects to `path`, sends `line` and reads the answer, `PID: LINE`, within five
    /// seconds.
    static func ask(_ path: String, _ line: String) -> EchoAnswer {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .refused(errno: errno) }
        defer { close(descriptor) }
        guard connect(descriptor, toUnixPath: path) == 0 else { return .refused(errno: errno) }
        let request = Array((line + "\n").utf8)
        guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return .unanswered }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, !reply.contains(UInt8(ascii: "\n")) {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 100) >= 0 else { return .unanswered }
            guard waiting.revents != 0 else { continue }
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            reply += buffer[..<count]
        }
        let text = String(decoding: reply, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":"), let worker = Int32(text[..<colon]) else { return .unanswered }
        return .answered(worker: worker)
    }
}

extension RunningHost {
    /// Waits until standard error holds `text` `count` times (at least), for at most
    /// `limit`; whether it did.
    func waitForError(_ text: String, count: Int = 1, limit: Duration = .seconds(20)) -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if standardError.components(separatedBy: text).count - 1 >= count { return true }
            usleep(10_000)
        }
        return false
    }
}

extension NotifyListener {
    /// Waits for a message that starts with `prefix` and contains `text`, skipping others;
    /// the message, or `nil`.
    func wait(forPrefix prefix: String, containing text: String = "", within limit: Duration = .seconds(20)) -> String? {
        let deadline = ContinuousClock.now + limit
        while let message = next(within: deadline - ContinuousClock.now) {
            if message.hasPrefix(prefix) && (text.isEmpty || message.contains(text)) { return message }
        }
        return nil
    }
}
