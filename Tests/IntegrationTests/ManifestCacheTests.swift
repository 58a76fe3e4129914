import Foundation
import Testing

/// The manifest cache: a file that has not changed is not read again, and a cache is used
/// only for the same unchanged file, only when it is private to the user.
@Suite("The manifest cache")
struct ManifestCacheTests {
    /// A plugin directory holding plugin Alpha, and a cache directory of its own.
    private func directory() throws -> (PluginDirectoryFixture, URL) {
        let directory = try PluginDirectoryFixture()
        try directory.add(fixture: "RecA", as: "Alpha")
        return (directory, directory.root.appending(path: "cache"))
    }

    private func list(_ directory: PluginDirectoryFixture, cache: URL, _ environment: [String: String] = [:]) throws -> CommandResult {
        try Command.run(
            Repository.host.path, ["list", "--dir", directory.plugins.path],
            environment: ["XDG_CACHE_HOME": cache.path].merging(environment) { _, new in new })
    }

    /// The one cache file under `cache`.
    private func cacheFile(in cache: URL) throws -> URL {
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.appending(path: "plugin-host").path)
        #expect(files.count == 1, "\(files)")
        return cache.appending(path: "plugin-host").appending(path: try #require(files.first))
    }

    /// Rewrites `file`, replacing the bytes `old` by `new` (of the same length) where they
    /// first occur, in place: same inode, same size.
    private func patch(_ file: URL, _ old: String, _ new: String) throws {
        var bytes = [UInt8](try Data(contentsOf: file))
        let pattern = Array(old.utf8)
        let at = try #require((0...(bytes.count - pattern.count)).first { Array(bytes[$0..<$0 + pattern.count]) == pattern })
        bytes.replaceSubrange(at..<at + pattern.count, with: Array(new.utf8))
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
    }

    @Test("the first scan writes a private cache; later scans take an unchanged file's manifest from it")
    func cacheIsUsed() throws {
        let (directory, cache) = try directory()
        #expect(try list(directory, cache: cache).standardOutput.contains("Alpha"))
        let file = try cacheFile(in: cache)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // The cache now says Bravo for the same, unchanged file: the host believes it.
        try patch(file, #""name": "Alpha""#, #""name": "Bravo""#)
        #expect(try list(directory, cache: cache).standardOutput.contains("Bravo"))
        // Unless the cache is off.
        #expect(try list(directory, cache: cache, ["PLUGIN_HOST_CACHE": "off"]).standardOutput.contains("Alpha"))
    }

    @Test("a cache that others can write is not used")
    func sharedCacheIgnored() throws {
        let (directory, cache) = try directory()
        _ = try list(directory, cache: cache)
        let file = try cacheFile(in: cache)
        try patch(file, #""name": "Alpha""#, #""name": "Bravo""#)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: file.path)
        #expect(try list(directory, cache: cache).standardOutput.contains("Alpha"))
    }

    @Test("a plugin file rewritten in place, same size and modification time, is read again")
    func rewrittenFileMisses() throws {
        let (directory, cache) = try directory()
        _ = try list(directory, cache: cache)
        let plugin = directory.plugins.appending(path: "libAlpha.so")
        let modified = try #require(try FileManager.default.attributesOfItem(atPath: plugin.path)[.modificationDate] as? Date)
        try patch(plugin, #""name": "Alpha""#, #""name": "Bravo""#)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: plugin.path)
        let listed = try list(directory, cache: cache)
        #expect(listed.standardOutput.contains("Bravo"), "\(listed.standardOutput)")
    }

    @Test("a damaged cache is ignored and rewritten", arguments: ["truncated", "garbage", "empty"])
    func damagedCache(kind: String) throws {
        let (directory, cache) = try directory()
        _ = try list(directory, cache: cache)
        let file = try cacheFile(in: cache)
        let bytes = try Data(contentsOf: file)
        switch kind {
        case "truncated": try bytes.prefix(bytes.count - 40).write(to: file)
        case "garbage": try Data("plugin-host manifest cache 1\n12 x\n".utf8).write(to: file)
        default: try Data().write(to: file)
        }
        let listed = try list(directory, cache: cache)
        #expect(listed.status == 0)
        #expect(listed.standardOutput.contains("Alpha"))
        #expect(try Data(contentsOf: file) == bytes)
    }

    @Test("a file whose trust changed is refused even though its manifest is cached")
    func trustCheckedAfresh() throws {
        let (directory, cache) = try directory()
        _ = try list(directory, cache: cache)
        let plugin = directory.plugins.appending(path: "libAlpha.so")
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: plugin.path)
        let listed = try list(directory, cache: cache)
        #expect(listed.standardOutput.contains("writable by"), "\(listed.standardOutput)")
    }
}
