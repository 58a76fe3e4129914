import Foundation
import Testing

@testable import PluginHost

/// A directory is its identity: every spelling of it, through a symbolic link too, is one set
/// of directories with one key, which names the record and the control socket.
@Suite("Plugin directories as the file system resolves them: one key whatever the spelling")
struct ResolvedDirectoriesTests {
    @Test("a trailing slash, ., .., a relative path and a symbolic link name one directory, and one key")
    func spellings() throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "resolved-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appending(path: "srv/p"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root.appending(path: "link").path, withDestinationPath: "srv/p")
        let real = try #require(ResolvedDirectories([root.appending(path: "srv/p").path], workingDirectory: "/").paths.first)
        let srv = root.appending(path: "srv").path
        let spellings: [(String, String)] = [
            (srv + "/p", "/"), (srv + "/p/", "/"), (srv + "//p/.", "/"), (srv + "/q/../p", "/"), ("./p", srv), ("p", srv),
            (root.path + "/link", "/"), ("../link/", srv),
        ]
        for (spelling, workingDirectory) in spellings {
            let resolved = ResolvedDirectories([spelling], workingDirectory: workingDirectory)
            #expect(resolved.paths == [real], "\(spelling) from \(workingDirectory)")
            #expect(resolved.key == ResolvedDirectories([real], workingDirectory: "/").key)
        }
        #expect(ResolvedDirectories([srv + "/p", "p", root.path + "/link"], workingDirectory: srv).paths == [real], "named three ways, searched once")
        #expect(ResolvedDirectories([srv + "/p"], workingDirectory: "/").key != ResolvedDirectories([srv], workingDirectory: "/").key)
    }

    @Test("a directory that does not exist is resolved by its text; a file's directory is resolved, its name kept")
    func missingAndFiles() throws {
        #expect(ResolvedDirectories(["/nowhere/a/./b/../c/"], workingDirectory: "/").paths == ["/nowhere/a/c"])
        #expect(ResolvedDirectories(["x//y"], workingDirectory: "/nowhere/base").paths == ["/nowhere/base/x/y"])
        let root = FileManager.default.temporaryDirectory.appending(path: "resolved-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appending(path: "p"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root.appending(path: "link").path, withDestinationPath: "p")
        let real = try #require(ResolvedDirectories([root.appending(path: "p").path], workingDirectory: "/").paths.first)
        #expect(ResolvedDirectories.resolveFile("link/./libTicker.so", in: root.path) == real + "/libTicker.so")
        #expect(ResolvedDirectories.resolveFile("/nowhere/x/../libA.so", in: "/") == "/nowhere/libA.so")
    }
}
