import Foundation

/// What a finished process left behind.
struct CommandResult {
    let status: Int32
    /// Whether the process ended by a signal (`status` is then the signal number).
    let signalled: Bool
    let standardOutput: String
    let standardError: String
}

/// A command that failed, with everything it printed.
struct CommandFailure: Error, CustomStringConvertible {
    let command: String
    let result: CommandResult

    var description: String {
        "\(command) exited with \(result.status)\n\(result.standardOutput)\(result.standardError)"
    }
}

enum Command {
    /// Runs `executable` with `arguments` to completion, capturing its output in files so
    /// that a full pipe cannot stall it.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil
    ) throws -> CommandResult {
        let scratch = try Scratch.directory(named: "output")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appending(path: "stdout")
        let errURL = scratch.appending(path: "stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try startWithSignalsUnblocked(process)
        process.waitUntilExit()
        try out.close()
        try err.close()
        return CommandResult(
            status: process.terminationStatus,
            signalled: process.terminationReason == .uncaughtSignal,
            standardOutput: try String(contentsOf: outURL, encoding: .utf8),
            standardError: try String(contentsOf: errURL, encoding: .utf8))
    }
}

/// Starts `process` with no signal blocked, as a shell starts a command. A child inherits the
/// signal mask of the thread that starts it, and the threads tests run on block most signals:
/// a `timeout(1)` started from one would never hear the SIGTERM sent to it.
func startWithSignalsUnblocked(_ process: Process) throws {
    var none = sigset_t()
    var before = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, &before)
    defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
    try process.run()
}

/// Processes as `/proc` shows them.
enum HostProcesses {
    /// The live (not zombie) children of `process`.
    static func children(of process: Int32) -> [Int32] {
        live { $0.parent == process }
    }

    /// The live (not zombie) members of process group `group`.
    static func members(ofGroup group: Int32) -> [Int32] {
        live { $0.group == group }
    }

    /// The live (not zombie) processes whose parent and group, as `/proc/PID/stat` gives
    /// them, satisfy `condition`.
    private static func live(where condition: ((parent: Int32, group: Int32)) -> Bool) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            // After the name: state, parent, group.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", let parent = Int32(fields[1]), let group = Int32(fields[2]) else { return false }
            return condition((parent, group))
        }.sorted()
    }

    /// Whether `process` is alive (and not a zombie).
    static func isAlive(_ process: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }
}

/// Sleeps until `instant`: to space out what a test sends the host (a second signal that must
/// be deliberate), never to wait for what the host does.
func pause(until instant: ContinuousClock.Instant) {
    let left = instant - ContinuousClock.now
    guard left > .zero else { return }
    let (seconds, attoseconds) = left.components
    usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
}
