import Foundation
import Testing

/// The host runs plugin code with the user's rights, so it refuses files anyone else could
/// have replaced: the rule sshd's StrictModes applies to authorized_keys.
@Suite("Unsafe plugin files and directories")
struct UnsafeFileTests {
    private var isRoot: Bool { getuid() == 0 }

    private func permissions(_ mode: Int, of url: URL) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }

    private func expectRefusal(_ directory: PluginDirectoryFixture, _ extra: [String] = [], naming fragment: String) throws {
        let (result, report) = try directory.runHostJSON(extra)
        #expect(result.status == 1)
        let error = try #require(report.errors.first { $0["code"] as? String == "unsafe-file" }, "\(report.errors)")
        #expect((error["message"] as? String ?? "").contains(fragment), "\(error)")
    }

    @Test("a plugin directory writable by group or others is refused")
    func writableDirectory() throws {
        let directory = try PluginDirectoryFixture.demo()
        try permissions(0o775, of: directory.plugins)
        try expectRefusal(directory, naming: "refusing plugin directory \(directory.plugins.path): the directory is writable by its group (mode 775)")
        try permissions(0o757, of: directory.plugins)
        try expectRefusal(directory, naming: "the directory is writable by others (mode 757)")
    }

    @Test("a plugin file writable by others is refused, and the others still are checked")
    func writableFile() throws {
        let directory = try PluginDirectoryFixture.demo()
        let file = directory.plugins.appending(path: "libDomain.so")
        try permissions(0o777, of: file)
        try expectRefusal(directory, naming: "refusing plugin file \(file.path): the file is writable by group and others (mode 777), so anyone in it could replace the code the host runs; fix it with: chmod go-w \(file.path)")
    }

    @Test("a file owned by another user is refused unless --allow-any-owner is given", .enabled(if: getuid() == 0, "needs root to give a file away"))
    func foreignOwner() throws {
        let directory = try PluginDirectoryFixture.demo()
        let file = directory.plugins.appending(path: "libApplication.so")
        try FileManager.default.setAttributes([.ownerAccountID: 65534], ofItemAtPath: file.path)
        try expectRefusal(directory, naming: "the file is owned by user 65534, not by user 0 who runs the host, nor by root")
        let allowed = try directory.runHost(["--allow-any-owner"])
        #expect(allowed.status == 0, "\(allowed.standardError)")
    }

    @Test("a symbolic link resolving outside the plugin directory is refused; one inside is followed")
    func symbolicLinks() throws {
        let directory = try PluginDirectoryFixture.demo()
        let outside = directory.root.appending(path: "libOutside.so")
        try FileManager.default.copyItem(at: Fixtures.plugin("Twin"), to: outside)
        try FileManager.default.createSymbolicLink(at: directory.plugins.appending(path: "libTwin.so"), withDestinationURL: outside)
        try expectRefusal(directory, naming: "it is a symbolic link to \(outside.resolvingSymlinksInPath().path), outside the plugin directory")

        try FileManager.default.removeItem(at: directory.plugins.appending(path: "libTwin.so"))
        try FileManager.default.moveItem(at: outside, to: directory.plugins.appending(path: "Twin.real"))
        try FileManager.default.createSymbolicLink(atPath: directory.plugins.appending(path: "libTwin.so").path, withDestinationPath: "Twin.real")
        let (result, report) = try directory.runHostJSON()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(report.plugins.contains { $0["name"] as? String == "Twin" && $0["status"] as? String == "bootstrapped" })
    }

    @Test("a directory or a FIFO named *.so is refused without hanging")
    func notRegularFiles() throws {
        let directory = try PluginDirectoryFixture.demo()
        try FileManager.default.createDirectory(at: directory.plugins.appending(path: "libFolder.so"), withIntermediateDirectories: false)
        #expect(mkfifo(directory.plugins.appending(path: "libPipe.so").path, 0o644) == 0)
        let (result, report) = try directory.runHostJSON()
        #expect(result.status == 1)
        let messages = report.errors.compactMap { $0["message"] as? String }
        #expect(messages.contains { $0.contains("libFolder.so: it is not a regular file (a directory)") })
        #expect(messages.contains { $0.contains("libPipe.so: it is not a regular file (a device, FIFO or socket)") })
    }
}
