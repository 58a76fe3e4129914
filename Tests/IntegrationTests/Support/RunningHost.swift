import Foundation

/// A `plugin-host` running in the background, to be signalled.
final class RunningHost {
    private let process = Process()
    private let output: URL
    private let errors: URL
    /// Standard output as a pipe nobody reads, when asked for.
    private let unreadPipe: Pipe?
    private let started = ContinuousClock.now

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameter unreadOutput: Connect standard output to a pipe that is never read, as a
    ///   consumer that stopped reading would.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil,
         unreadOutput: Bool = false) throws {
        let scratch = try Scratch.directory(named: "running")
        output = scratch.appending(path: "stdout")
        errors = scratch.appending(path: "stderr")
        try Data().write(to: output)
        try Data().write(to: errors)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        unreadPipe = unreadOutput ? Pipe() : nil
        if let unreadPipe {
            process.standardOutput = unreadPipe
        } else {
            process.standardOutput = try FileHandle(forWritingTo: output)
        }
        process.standardError = try FileHandle(forWritingTo: errors)
        try startWithSignalsUnblocked(process)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var processIdentifier: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    /// How long it has been running (or ran).
    var elapsed: Duration { ContinuousClock.now - started }

    /// What it wrote on standard error so far.
    var standardError: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    /// What it wrote on standard output so far (nothing when that is a pipe nobody reads).
    var standardOutput: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// Sends `signal`.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Sends `signal`, waits for the host to end (killing it after 20 s), returns its output.
    func stop(with signal: Int32) -> CommandResult {
        send(signal)
        return wait()
    }

    /// Waits for the host to end (killing it after `limit`), returns its output.
    func wait(limit: Duration = .seconds(20)) -> CommandResult {
        let deadline = ContinuousClock.now + limit
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return CommandResult(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
            standardOutput: (try? String(contentsOf: output, encoding: .utf8)) ?? "",
            standardError: standardError)
    }
}
