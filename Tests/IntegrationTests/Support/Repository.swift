import Foundation
import Synchronization

/// The repository and what `make` builds in it.
enum Repository {
    /// The repository root, three levels above this file.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The host built by `make`.
    static var host: URL { root.appending(path: "build/bin/plugin-host") }

    /// A demo plugin built by `make`, such as `Persistence`.
    static func demoPlugin(_ name: String) -> URL { root.appending(path: "plugins/lib\(name).so") }

    /// Runs `make` in the repository with `arguments`.
    ///
    /// - Throws: ``CommandFailure`` with make's output when it fails.
    static func make(_ arguments: [String]) throws {
        let result = try Command.run("/usr/bin/env", ["make", "--no-print-directory", "-C", root.path] + arguments)
        guard result.status == 0 else { throw CommandFailure(command: "make " + arguments.joined(separator: " "), result: result) }
    }
}

/// Fixture plugins from `Tests/Fixtures`, built with `make fixtures` into `build/fixtures`,
/// where make keeps them from one test run to the next and rebuilds only those whose sources
/// (or the ABI, or the demo plugins they link) changed. Tests read them and copy them; none
/// writes one.
enum Fixtures {
    private static let built: Result<URL, any Error> = Result {
        try Repository.make(["all"])
        let directory = Repository.root.appending(path: "build/fixtures")
        try Repository.make(["fixtures", "FIXTURES_OUT=\(directory.path)", "-j2"])
        return directory
    }

    /// The built fixture plugin `name`.
    static func plugin(_ name: String) throws -> URL {
        try built.get().appending(path: "lib\(name).so")
    }
}

/// Temporary directories of one test run, all in one directory that is removed when the
/// test process exits, so that repeated runs do not fill the temporary directory (the
/// fixtures alone take megabytes).
enum Scratch {
    private static let root: Result<URL, any Error> = Result {
        let url = FileManager.default.temporaryDirectory.appending(path: "plugin-host-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { Scratch.removeAll() }
        return url
    }

    /// The root for projects that must not sit inside the repository (`make test` points
    /// TMPDIR into build/): /tmp, as a plugin author's own directory would be.
    private static let outsideRoot: Result<URL, any Error> = Result {
        let url = URL(fileURLWithPath: "/tmp").appending(path: "plugin-host-authors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { Scratch.removeAll() }
        return url
    }

    /// A new directory whose name starts with `name`.
    static func directory(named name: String) throws -> URL {
        let url = try root.get().appending(path: "\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A new directory whose name starts with `name`, outside the repository.
    static func directoryOutsideRepository(named name: String) throws -> URL {
        let url = try outsideRoot.get().appending(path: "\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The short paths handed out for sockets, removed at exit if a host killed in a
    /// failing test left them.
    private static let sockets = Mutex<[String]>([])

    /// A new path for a Unix socket named after `name`: in /tmp, short as a socket's path must be.
    static func socketPath(named name: String) -> String {
        let path = "/tmp/plugin-host-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        sockets.withLock { $0.append(path) }
        _ = try? root.get()  // registers the removal at exit
        return path
    }

    private static func removeAll() {
        for root in [root, outsideRoot] {
            if case .success(let url) = root { try? FileManager.default.removeItem(at: url) }
        }
        for path in sockets.withLock({ $0 }) { unlink(path) }
    }
}
