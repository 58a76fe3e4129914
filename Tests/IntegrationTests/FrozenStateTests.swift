import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A state directory on a disk that stalls stalls nothing, through the real binary: its file
/// system frozen (`fsfreeze`, on a file system of its own, loop-mounted), a plugin crashes and an
/// operator asks for the status; the restart and the answer come as they always do, the host says
/// once that its record's writes wait, and after the thaw the record holds the verdict.
@Suite("A frozen state directory stalls nothing: the record is written outside the supervisor's loop")
struct FrozenStateTests {
    @Test("frozen for 10 s while a plugin crashes and an operator asks for status: both are handled at once; after the thaw the record holds the verdict")
    func frozenStateDirectory() throws {
        let mount = try LoopMount()
        defer { mount.remove() }
        let state = mount.directory.appending(path: "state")
        let service = try ServiceFixture()
        let console = OperatorConsole()
        let (host, listener) = try service.start(console.arguments + ["--state", state.path])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "\(host.standardError)")
        #expect(IntegrationTests.wait { RecordOnDisk.text(in: state).contains("permanent\tTicker\t") }, "\(RecordOnDisk.text(in: state))")

        try mount.freeze()
        let frozenAt = ContinuousClock.now
        defer { mount.thaw() }
        try Data().write(to: service.trigger)
        // The crash is handled while the directory is frozen: the next generation serves without Ticker.
        #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker (crashed during the run phase: SIGSEGV") != nil, "\(host.standardError)")
        let restarted = ContinuousClock.now - frozenAt
        let asked = ContinuousClock.now
        let status = try console.run("status")
        let answered = ContinuousClock.now - asked
        #expect(status.status == 0, "\(status.standardError)")
        #expect(restarted < .seconds(5) && answered < .seconds(2), "restarted after \(restarted), answered after \(answered), while frozen")
        // Said once, while it holds.
        #expect(host.waitForError("has not been written for over 5 s: its state directory does not answer"), "\(host.standardError)")
        let stalled = try console.run("status", ["--json"]).standardOutput
        #expect(stalled.contains("\"recordStalledSeconds\":"), "\(stalled)")
        #expect(!RecordOnDisk.text(in: state).contains("left-out\tTicker\t"), "the record cannot have changed while frozen")

        // Frozen for 10 s in all, then thawed: the verdict is written.
        while ContinuousClock.now - frozenAt < .seconds(10) { usleep(50_000) }
        mount.thaw()
        #expect(host.waitForError("is written again, after"), "\(host.standardError)")
        #expect(IntegrationTests.wait { RecordOnDisk.text(in: state).contains("left-out\tTicker\t") }, "\(RecordOnDisk.text(in: state))")
        #expect(host.standardError.components(separatedBy: "has not been written for").count == 2, "said once: \(host.standardError)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}

/// A small ext4 file system of its own, in a file, loop-mounted: one a test can freeze.
private struct LoopMount {
    let image: URL
    let directory: URL

    init() throws {
        let scratch = try Scratch.directory(named: "loop")
        image = scratch.appending(path: "state.img")
        directory = scratch.appending(path: "mnt")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (command, arguments) in [("/usr/bin/truncate", ["-s", "32M", image.path]), ("/usr/sbin/mkfs.ext4", ["-q", image.path]),
                                      ("/usr/bin/mount", ["-o", "loop", image.path, directory.path])] {
            let result = try Command.run(command, arguments)
            guard result.status == 0 else {
                throw CommandFailure(command: "\(command) \(arguments.joined(separator: " ")) (the test needs root and a loop device)", result: result)
            }
        }
    }

    func freeze() throws {
        let result = try Command.run("/usr/sbin/fsfreeze", ["-f", directory.path])
        guard result.status == 0 else { throw CommandFailure(command: "fsfreeze -f", result: result) }
    }

    /// Thaws it; thawing one not frozen is no harm.
    func thaw() {
        _ = try? Command.run("/usr/sbin/fsfreeze", ["-u", directory.path])
    }

    func remove() {
        thaw()
        _ = try? Command.run("/usr/bin/umount", ["-l", directory.path])
    }
}
