import Foundation
import Testing

/// Bad plugin files: each is a clear error naming the file, never a crash or a hang.
@Suite("Malformed plugin files")
struct MalformedInputTests {
    /// A copy of the Twin fixture whose manifest section holds `manifest`.
    private func plugin(withManifest manifest: [UInt8], in directory: PluginDirectoryFixture, named name: String = "libBad.so") throws -> URL {
        let contents = directory.root.appending(path: "manifest-\(UUID().uuidString)")
        try Data(manifest).write(to: contents)
        let target = directory.plugins.appending(path: name)
        let result = try Command.run(
            "/usr/bin/env", ["objcopy", "--update-section", ".plugin_host_manifest=\(contents.path)", Fixtures.plugin("Twin").path, target.path])
        #expect(result.status == 0, "\(result.standardError)")
        try directory.trust(target)
        return target
    }

    private func expectError(_ directory: PluginDirectoryFixture, file: URL, code: String, _ fragment: String) throws {
        let (result, report) = try directory.runHostJSON()
        #expect(result.status == 1)
        #expect(!result.signalled)
        let error = try #require(report.errors.first { $0["file"] as? String == file.path }, "\(report.errors)")
        #expect(error["code"] as? String == code)
        #expect((error["message"] as? String ?? "").contains(fragment), "\(error)")
    }

    @Test("a truncated shared object, at several lengths")
    func truncated() throws {
        let whole = try Data(contentsOf: Fixtures.plugin("Twin"))
        for length in [1, 5, 63, 64, 1000, whole.count / 2, whole.count - 1] {
            let directory = try PluginDirectoryFixture()
            let file = directory.plugins.appending(path: "libCut.so")
            try directory.write(whole.prefix(length), to: file)
            let (result, report) = try directory.runHostJSON()
            #expect(result.status == 1, "length \(length)")
            #expect(!result.signalled)
            let message = report.errors.first?["message"] as? String ?? ""
            #expect(message.hasPrefix("\(file.path): "), "length \(length): \(message)")
        }
    }

    @Test("an empty file")
    func empty() throws {
        let directory = try PluginDirectoryFixture()
        let file = directory.plugins.appending(path: "libEmpty.so")
        try directory.write(Data(), to: file)
        try expectError(directory, file: file, code: "not-a-shared-object", "not a loadable ELF shared object: the file is empty")
    }

    @Test("an ELF shared object for another machine")
    func otherMachine() throws {
        let directory = try PluginDirectoryFixture()
        var bytes = try Data(contentsOf: Fixtures.plugin("Twin"))
        bytes[18] = 183  // EM_AARCH64
        bytes[19] = 0
        let file = directory.plugins.appending(path: "libArm.so")
        try directory.write(bytes, to: file)
        try expectError(directory, file: file, code: "not-a-shared-object", "built for another machine (ELF machine 183, this host is 62)")
    }

    @Test("manifests that are wrong in content", arguments: [
        ([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D], "not valid JSON: line 1, column 2: string is not valid UTF-8"),
        (Array("{\"name\": \"Bad\",".utf8), "not valid JSON"),
        (Array(#"{"name":"a/b","version":"1.0.0","abi":1}"#.utf8), #""name" "a/b" may hold only ASCII letters"#),
        (Array(#"{"name":"Bad\u0007","version":"1.0.0","abi":1}"#.utf8), #""name" "Bad\u{7}" may hold only ASCII letters"#),
        (Array(#"{"name":"Bad","version":"1.0","abi":1}"#.utf8), #""version" "1.0" is not a semantic version"#),
        (Array(#"{"name":"Bad","version":"1.0.0","abi":1,"requires":["Bad"]}"#.utf8), "plugin Bad requires itself"),
    ])
    func badManifests(manifest: [UInt8], fragment: String) throws {
        let directory = try PluginDirectoryFixture()
        let file = try plugin(withManifest: manifest, in: directory)
        try expectError(directory, file: file, code: "malformed-manifest", fragment)
    }

    @Test("an oversized manifest")
    func oversized() throws {
        let directory = try PluginDirectoryFixture()
        let padding = String(repeating: " ", count: 70_000)
        let file = try plugin(withManifest: Array(#"{"name":"Bad","version":"1.0.0","abi":1}"#.utf8) + Array(padding.utf8), in: directory)
        try expectError(directory, file: file, code: "malformed-manifest", "holds 70040 bytes, more than the 65536 allowed")
    }
}
