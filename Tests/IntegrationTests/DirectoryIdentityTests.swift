import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A directory is its identity, through the real binary: whatever `--dir` spells it as (a
/// trailing slash, `.`, `..`, a relative path, a symbolic link), a host of it keeps one record
/// and one control socket; a record kept under another spelling's name is taken over once;
/// `history` says why it cannot read a record, and where a running host keeps its own.
@Suite("One directory, one record, whatever its spelling; history says why it cannot read")
struct DirectoryIdentityTests {
    @Test("a build left out under one spelling of the directory is never bootstrapped under another; status finds the host under each")
    func everySpelling() throws {
        let service = try ServiceFixture()
        let state = try Scratch.directory(named: "state")
        let plugins = service.directory.plugins
        let parent = plugins.deletingLastPathComponent()
        let name = plugins.lastPathComponent
        try FileManager.default.createDirectory(at: parent.appending(path: "sub"), withIntermediateDirectories: true)
        let link = try Scratch.directory(named: "links").appending(path: "plugins-link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: plugins.path)

        let (first, listener) = try service.start(["--state", state.path])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "\(first.standardError)")
        try Data().write(to: service.trigger)
        #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker (crashed during the run phase: SIGSEGV") != nil, "\(first.standardError)")
        try FileManager.default.removeItem(at: service.trigger)
        #expect(first.stop(with: SIGTERM).status == 0)
        #expect(service.log.lines.filter { $0 == "Ticker 0.1.0 bootstrap" }.count == 1)

        // (how --dir spells it, where the host starts, how status spells it)
        let spellings: [(String, URL?, String)] = [
            (plugins.path + "/", nil, plugins.path),
            (parent.path + "/./" + name, nil, "./" + name),
            (parent.path + "/sub/../" + name, nil, link.path),
            ("./" + name, parent, plugins.path + "//"),
            (name, parent, parent.path + "/sub/../" + name + "/"),
            (link.path, nil, plugins.path),
        ]
        for (spelling, workingDirectory, asked) in spellings {
            let (host, listener) = try service.start(["--state", state.path], spelling: spelling, in: workingDirectory)
            #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker (crashed during the run phase: SIGSEGV") != nil,
                    "--dir \(spelling): \(host.standardError)")
            #expect(host.standardError.contains("plugin-host: left out, as the record of what this host proved says: Ticker 0.1.0"),
                    "--dir \(spelling): \(host.standardError)")
            let status = try Command.run(Repository.host.path, ["status", "--dir", asked, "--json"], in: parent)
            #expect(status.status == 0, "status --dir \(asked) of a host of --dir \(spelling): \(status.standardError)")
            #expect(status.standardOutput.contains("\"state\":\"serving\""), "\(status.standardOutput)")
            #expect(host.stop(with: SIGTERM).status == 0)
        }
        #expect(service.log.lines.filter { $0 == "Ticker 0.1.0 bootstrap" }.count == 1, "\(service.log.lines)")
        let records = RecordOnDisk.names(in: state)
        #expect(records.count == 1, "\(records)")
    }

    @Test("a record kept under the name of another spelling of the directories is taken over once, said in one line")
    func takesOverAnEarlierName() throws {
        let service = try ServiceFixture()
        let state = try Scratch.directory(named: "state")
        let (first, listener) = try service.start(["--state", state.path])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "\(first.standardError)")
        try Data().write(to: service.trigger)
        #expect(listener.wait(forPrefix: "READY=1", containing: "left out: Ticker") != nil, "\(first.standardError)")
        try FileManager.default.removeItem(at: service.trigger)
        #expect(first.stop(with: SIGTERM).status == 0)

        // As a host that named records by the text of --dir wrote it, for `--dir PLUGINS/`.
        let current = try #require(RecordOnDisk.file(in: state))
        let spelt = service.directory.plugins.path + "/"
        let earlier = "record-" + FNV1a64.hex(Array(spelt.utf8))
        let text = try String(contentsOf: state.appending(path: current), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[1] = "directories\t" + spelt
        let body = lines.prefix { !$0.hasPrefix("end\t") }.joined(separator: "\n") + "\n"
        try Data((body + "end\t" + FNV1a64.hex(Array(body.utf8)) + "\n").utf8).write(to: state.appending(path: earlier))
        try FileManager.default.removeItem(at: state.appending(path: current))
        let copies = "builds-" + current.dropFirst("record-".count)
        if FileManager.default.fileExists(atPath: state.appending(path: copies).path) {
            try FileManager.default.moveItem(at: state.appending(path: copies), to: state.appending(path: "builds-" + earlier.dropFirst("record-".count)))
        }

        let (second, again) = try service.start(["--state", state.path])
        #expect(again.wait(forPrefix: "READY=1", containing: "left out: Ticker (crashed during the run phase: SIGSEGV") != nil, "\(second.standardError)")
        #expect(second.standardError.components(separatedBy: "plugin-host: note: took over the record of these directories kept at \(state.path)/\(earlier)").count == 2,
                "\(second.standardError)")
        #expect(second.stop(with: SIGTERM).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: state.path)
        #expect(names.contains(current) && !names.contains(earlier), "\(names)")

        let (third, once) = try service.start(["--state", state.path])
        #expect(once.wait(forPrefix: "READY=1", containing: "left out: Ticker") != nil, "\(third.standardError)")
        #expect(!third.standardError.contains("took over"), "\(third.standardError)")
        #expect(third.stop(with: SIGTERM).status == 0)
        #expect(service.log.lines.filter { $0 == "Ticker 0.1.0 bootstrap" }.count == 1, "\(service.log.lines)")
    }

    @Test("history exits 1 naming why it cannot read: a missing state directory, a file in its place, a record this user may not read")
    func historyCannotRead() throws {
        let plugins = try PluginDirectoryFixture.demo(fixtures: [])
        func history(_ state: String, as user: [String] = []) throws -> CommandResult {
            try Command.run(user.isEmpty ? Repository.host.path : "/usr/bin/setpriv",
                            user + (user.isEmpty ? [] : [Repository.host.path]) + ["history", "--dir", plugins.plugins.path, "--state", state])
        }
        let missing = try history("/nonexistent/state")
        #expect(missing.status == 1)
        #expect(missing.standardError.hasPrefix("plugin-host: error: cannot read the record at /nonexistent/state/record-"), "\(missing.standardError)")
        #expect(missing.standardError.contains("No such file or directory"), "\(missing.standardError)")

        let file = try Scratch.directory(named: "state").appending(path: "a-file")
        try Data("not a directory".utf8).write(to: file)
        let notADirectory = try history(file.path)
        #expect(notADirectory.status == 1)
        #expect(notADirectory.standardError.contains("cannot read the record at \(file.path)/record-"), "\(notADirectory.standardError)")
        #expect(notADirectory.standardError.contains("Not a directory"), "\(notADirectory.standardError)")

        // A record of root's, mode 600, read by another user.
        let state = try Scratch.directoryOutsideRepository(named: "state")
        chmod(state.deletingLastPathComponent().path, 0o755)
        chmod(state.path, 0o755)
        let key = FNV1a64.hex(Array(plugins.plugins.resolvingSymlinksInPath().path.utf8))
        let record = state.appending(path: "record-" + key)
        try Data("plugin-host record 2\n".utf8).write(to: record)
        chmod(record.path, 0o600)
        let denied = try history(state.path, as: ["--reuid=65534", "--regid=65534", "--clear-groups"])
        #expect(denied.status == 1, "\(denied.standardOutput)\(denied.standardError)")
        #expect(denied.standardError.contains("cannot read the record at \(record.path): open \(record.path): Permission denied"), "\(denied.standardError)")
        #expect(!denied.standardOutput.contains("holds no build yet"), "\(denied.standardOutput)")
    }

    @Test("history, run with no --state while the host runs with another, reads the running host's record; with --state, says where it is")
    func historyFollowsTheRunningHost() throws {
        let service = try ServiceFixture()
        let state = try Scratch.directory(named: "state")
        let elsewhere = try Scratch.directory(named: "elsewhere")
        let (host, listener) = try service.start(["--state", state.path])
        #expect(listener.wait(forPrefix: "READY=1") == "READY=1\nSTATUS=5 plugins running", "\(host.standardError)")
        #expect(IntegrationTests.wait { RecordOnDisk.text(in: state).contains("permanent\tTicker\t") }, "\(RecordOnDisk.text(in: state))")
        let kept = try #require(RecordOnDisk.file(in: state))

        let followed = try Command.run(Repository.host.path, ["history", "--dir", service.directory.plugins.path + "/"],
                                       environment: ["XDG_STATE_HOME": elsewhere.path])
        #expect(followed.status == 0, "\(followed.standardError)")
        #expect(followed.standardError.contains("plugin-host: note: reading the record the host that serves these directories keeps, at \(state.path)/\(kept)"),
                "\(followed.standardError)")
        #expect(followed.standardOutput.split(separator: "\n").contains { $0.hasPrefix("  Ticker ") && $0.contains(" 0.1.0 ") && $0.contains(" permanent ") },
                "\(followed.standardOutput)")

        let told = try Command.run(Repository.host.path, ["history", "--dir", service.directory.plugins.path, "--state", elsewhere.path])
        #expect(told.status == 1)
        #expect(told.standardError.contains("no record of these directories at \(elsewhere.path)/\(kept): the host that serves these directories keeps its record at \(state.path)/\(kept); read it with --state \(state.path)"),
                "\(told.standardError)")
        #expect(host.stop(with: SIGTERM).status == 0)
    }
}

/// FNV-1a, 64 bits, as the host names records and checks them: the tests write a record as an
/// earlier host would have.
enum FNV1a64 {
    static func hex(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
