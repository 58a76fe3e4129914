import Foundation
import Testing

@testable import PluginHost

/// The record of what the host proved, as a file: it reads back as written, and a file cut
/// short at any byte, or changed, is found damaged rather than misread.
@Suite("The record on disk: read back as written; a torn or changed file is found, never misread")
struct RecordFileTests {
    private let record = BuildRecord(leftOut: [
        BuildRecord.LeftOut(
            name: "Ticker", file: "plugins/libTicker.so", version: "0.3.1",
            identity: FileIdentity(device: 2049, inode: 1_234_567, size: 81_920, modificationNanoseconds: 1_764_000_000_123_456_789, changeNanoseconds: 1_764_000_000_223_456_789),
            reason: .recorded("crashed during the run phase: SIGSEGV on trial"), since: 1_764_000_000),
        BuildRecord.LeftOut(
            name: "Odd\tName", file: "plugins/lib%Odd.so", version: "1.0.0",
            identity: FileIdentity(device: 1, inode: 2, size: 3, modificationNanoseconds: -4, changeNanoseconds: 5),
            reason: .recorded("a reason\nover two lines, 100% of it")),
    ], permanent: [
        BuildRecord.Build(
            name: "Ticker", file: "plugins/libTicker.so", version: "0.3.0",
            identity: FileIdentity(device: 2049, inode: 1_234_500, size: 81_000, modificationNanoseconds: 1_763_000_000_000_000_001, changeNanoseconds: 1_763_000_000_000_000_002),
            copy: FileIdentity(device: 2050, inode: 77, size: 81_000, modificationNanoseconds: 1_763_000_000_000_000_001, changeNanoseconds: 1_764_000_000_000_000_003),
            since: 1_763_000_000),
        BuildRecord.Build(
            name: "Echo", file: "plugins/libEcho.so", version: "1.0.0",
            identity: FileIdentity(device: 2049, inode: 9, size: 10, modificationNanoseconds: 11, changeNanoseconds: 12)),
    ], onTrial: [
        BuildRecord.Build(
            name: "Echo", file: "plugins/libEcho.so", version: "1.1.0",
            identity: FileIdentity(device: 2049, inode: 13, size: 14, modificationNanoseconds: 15, changeNanoseconds: 16)),
    ])

    @Test("a record reads back as written, tabs, newlines and percent signs in its fields included")
    func roundTrip() {
        let bytes = RecordFile.encode(record, directories: ["/srv/plugins", "/opt/more"])
        #expect(RecordFile.decode(bytes) == .record(record))
        #expect(RecordFile.decode(RecordFile.encode(BuildRecord(), directories: [])) == .record(BuildRecord()))
    }

    @Test("a file cut short at any byte is damaged, never a shorter record")
    func tornAtEveryByte() {
        let bytes = RecordFile.encode(record, directories: ["/srv/plugins"])
        for length in 0..<bytes.count {
            guard case .damaged = RecordFile.decode(Array(bytes[..<length])) else {
                Issue.record("cut at byte \(length) of \(bytes.count) reads as \(RecordFile.decode(Array(bytes[..<length])))")
                return
            }
        }
    }

    @Test("a byte changed anywhere is found")
    func changedByte() {
        let bytes = RecordFile.encode(record, directories: ["/srv/plugins"])
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x01
            if case .record = RecordFile.decode(changed) { Issue.record("a change at byte \(index) reads as a record") }
        }
    }

    @Test("a whole record of a later format, or with a line this version does not know, is refused, with why; one of format 1 is read")
    func laterFormat() {
        func signed(_ text: String) -> [UInt8] { Array(text.utf8) + Array("end\t\(RecordFile.checksum(Array(text.utf8)))\n".utf8) }
        #expect(RecordFile.decode(signed("plugin-host record 3\ndirectories\t/srv\n"))
            == .damaged("it does not begin with 'plugin-host record 2' (a later version of plugin-host may have written it)"))
        #expect(RecordFile.decode(signed("plugin-host record 2\nleft-out\tTicker\n")) == .damaged("line 2 is not a build as this version writes one"))
        #expect(RecordFile.decode(signed("plugin-host record 2\npermanent\tTicker\tf\t1.0\t1\t2\t3\t4\t5\t-\t-\t-\t-\t6\n"))
            == .damaged("line 2 is not a build as this version writes one"))
        #expect(RecordFile.decode(signed("plugin-host record 2\ntrial\tTicker\n")) == .damaged("line 2 is not understood"))
        #expect(RecordFile.decode(signed("plugin-host record 2\n")) == .record(BuildRecord()))
        let formatOne = "plugin-host record 1\nleft-out\tTicker\t/p/libTicker.so\t0.3.1\t1\t2\t3\t4\t5\tcrashed\n"
        #expect(RecordFile.decode(signed(formatOne)) == .record(BuildRecord(leftOut: [BuildRecord.LeftOut(
            name: "Ticker", file: "/p/libTicker.so", version: "0.3.1",
            identity: FileIdentity(device: 1, inode: 2, size: 3, modificationNanoseconds: 4, changeNanoseconds: 5), reason: .recorded("crashed"))])))
    }

    @Test("a record is written where its path says, its directories made, each file kept as an absolute path")
    func writtenWithAbsolutePaths() throws {
        let state = FileManager.default.temporaryDirectory.appending(path: "record-\(UUID().uuidString)/state").path
        defer { try? FileManager.default.removeItem(atPath: (state as NSString).deletingLastPathComponent) }
        let file = RecordFile(path: state + "/record-test", directories: ResolvedDirectories(["plugins"], workingDirectory: "/srv/app"), workingDirectory: "/srv/app")
        var relative = record
        relative.leftOut[0] = BuildRecord.LeftOut(
            name: "Ticker", file: "plugins/libTicker.so", version: "0.3.1", identity: record.leftOut[0].identity, reason: record.leftOut[0].reason)
        try file.write(relative)
        guard case .record(let read) = file.read() else {
            Issue.record("read as \(file.read())")
            return
        }
        #expect(read.leftOut.map(\.file) == ["/srv/app/plugins/libTicker.so", "/srv/app/plugins/lib%Odd.so"])
        #expect(read.permanent.map(\.file) == ["/srv/app/plugins/libTicker.so", "/srv/app/plugins/libEcho.so"])
        #expect(read.onTrial.map(\.file) == ["/srv/app/plugins/libEcho.so"])
        #expect(RecordFile(path: state + "/none", directories: file.directories).read() == .none)
    }

    @Test("the record lives in --state, else systemd's STATE_DIRECTORY, else XDG_STATE_HOME, else ~/.local/state; one file per set of directories")
    func whereItLives() {
        let environment = ["STATE_DIRECTORY": "/var/lib/plugin-host:/var/lib/other", "XDG_STATE_HOME": "/home/u/.state", "HOME": "/home/u"]
        func path(state: String? = nil, _ keys: [String], directories: [String] = ["plugins"]) -> String? {
            RecordFile(of: directories, state: state, workingDirectory: "/srv/app") { name in keys.contains(name) ? environment[name] : nil }?.path
        }
        #expect(path(state: "/tmp/state", Array(environment.keys))?.hasPrefix("/tmp/state/record-") == true)
        #expect(path(state: "state", [])?.hasPrefix("/srv/app/state/record-") == true)
        #expect(path(["STATE_DIRECTORY", "XDG_STATE_HOME", "HOME"])?.hasPrefix("/var/lib/plugin-host/record-") == true)
        #expect(path(["XDG_STATE_HOME", "HOME"])?.hasPrefix("/home/u/.state/plugin-host/record-") == true)
        #expect(path(["HOME"])?.hasPrefix("/home/u/.local/state/plugin-host/record-") == true)
        #expect(path([]) == nil)
        #expect(path(["HOME"]) == path(["HOME"], directories: ["/srv/app/plugins"]), "a relative directory is the same directory")
        #expect(path(["HOME"]) == path(["HOME"], directories: ["/srv/app/plugins/", "./plugins"]), "so is one spelt otherwise, once")
        #expect(path(["HOME"]) == path(["HOME"], directories: ["/srv/./app/x/../plugins"]))
        #expect(path(["HOME"]) != path(["HOME"], directories: ["/srv/other"]))
    }

    @Test("history lists each plugin's build on trial, then its permanent builds newest first, then those left out newest first")
    func history() {
        let entries = HistoryCommand.entries(of: record)
        #expect(entries.map { "\($0.plugin) \($0.version) \($0.verdict)" } == [
            "Ticker 0.3.0 permanent", "Ticker 0.3.1 left out", "Echo 1.1.0 on trial", "Echo 1.0.0 permanent", "Odd\tName 1.0.0 left out",
        ])
        #expect(entries.first?.copy == true && entries.first?.since == 1_763_000_000)
        #expect(entries[1].reason == "crashed during the run phase: SIGSEGV on trial")
    }

    @Test("each build keeps the instant the record first kept it so; a build new to the record gets now")
    func stamped() {
        var next = record
        next.onTrial.append(BuildRecord.Build(
            name: "Ticker", file: "plugins/libTicker.so", version: "0.4.0", identity: FileIdentity(device: 1, inode: 99, size: 1, modificationNanoseconds: 1, changeNanoseconds: 1)))
        next.stamp(since: record, now: 2_000_000_000)
        #expect(next.leftOut.map(\.since) == [1_764_000_000, 2_000_000_000])
        #expect(next.permanent.map(\.since) == [1_763_000_000, 2_000_000_000])
        #expect(next.onTrial.map(\.since) == [2_000_000_000, 2_000_000_000])
    }
}
