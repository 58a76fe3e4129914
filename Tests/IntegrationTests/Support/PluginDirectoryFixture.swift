import Foundation

/// A temporary plugin directory holding chosen plugin files, a data directory and a
/// configuration file that points Persistence at it.
struct PluginDirectoryFixture {
    let root: URL
    var plugins: URL { root.appending(path: "plugins") }
    var data: URL { root.appending(path: "data") }
    var configuration: URL { root.appending(path: "config.json") }

    /// Creates the directory with the demo plugins named in `demo` and the fixture plugins
    /// named in `fixtures`.
    init(demo: [String] = [], fixtures: [String] = []) throws {
        root = try Scratch.directory(named: "run")
        // Mode 755 whatever the umask: the host refuses a group-writable plugin directory.
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        for name in demo { try add(Repository.demoPlugin(name)) }
        for name in fixtures { try add(Fixtures.plugin(name)) }
        let settings = #"{"plugins": {"Persistence": {"dataDirectory": "\#(data.path)"}}}"#
        try Data(settings.utf8).write(to: configuration)
    }

    /// The demo application: Persistence, Domain and Application.
    static func demo(fixtures: [String] = []) throws -> PluginDirectoryFixture {
        try PluginDirectoryFixture(demo: ["Persistence", "Domain", "Application"], fixtures: fixtures)
    }

    /// Copies `file` into the plugin directory, as `name` if given.
    func add(_ file: URL, as name: String? = nil) throws {
        try FileManager.default.copyItem(at: file, to: plugins.appending(path: name ?? file.lastPathComponent))
    }

    /// Copies the fixture plugin `fixture` into the plugin directory as plugin `name`, with
    /// a manifest that requires `requires`: one compiled fixture, several plugins.
    ///   - upgrade: The manifest's `"upgrade"` order (`beside`), or none (`after`).
    ///   - renamedIn: Whether the file is written beside the directory, then renamed in, as a
    ///     plugin dropped into a directory a host watches must be.
    func add(fixture: String, as name: String, requires: [String] = [], upgrade: String? = nil, renamedIn: Bool = false) throws {
        let manifest = root.appending(path: "\(name).manifest.json")
        let list = requires.map { "\"\($0)\"" }.joined(separator: ", ")
        let order = upgrade.map { #", "upgrade": "\#($0)""# } ?? ""
        try Data(#"{"name": "\#(name)", "version": "1.0.0", "abi": 2, "requires": [\#(list)]\#(order)}"#.utf8).write(to: manifest)
        let target = plugins.appending(path: "lib\(name).so")
        let written = renamedIn ? root.appending(path: "lib\(name).staging.so") : target
        let result = try Command.run("/usr/bin/env", [
            "objcopy", "--update-section", ".plugin_host_manifest=\(manifest.path)", try Fixtures.plugin(fixture).path, written.path,
        ])
        guard result.status == 0 else { throw CommandFailure(command: "objcopy", result: result) }
        try trust(written)
        if renamedIn, rename(written.path, target.path) != 0 { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    /// Writes `contents` to a file in the plugin directory, with mode 644.
    func write(_ contents: String, to name: String) throws {
        try write(Data(contents.utf8), to: plugins.appending(path: name))
    }

    /// Writes `data` to `file` with mode 644 whatever the umask, as the host requires of
    /// plugin files.
    func write(_ data: Data, to file: URL) throws {
        try data.write(to: file)
        try trust(file)
    }

    /// Gives `file` mode 755, so that the host's file checks pass whatever the umask.
    func trust(_ file: URL) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
    }

    /// Runs the real `plugin-host` on this directory, with this configuration.
    func runHost(_ extra: [String] = [], environment: [String: String] = [:]) throws -> CommandResult {
        try Command.run(Repository.host.path, ["--dir", plugins.path, "--config", configuration.path] + extra, environment: environment)
    }

    /// Writes the configuration file: Persistence's data directory plus `settings`.
    func configure(_ settings: String) throws {
        let text = #"{"plugins": {"Persistence": {"dataDirectory": "\#(data.path)"}, \#(settings)}}"#
        try Data(text.utf8).write(to: configuration)
    }

    /// The `--json` report of a run, parsed.
    /// - Parameter extra: Arguments after `--dir DIR --config FILE --json`.
    func runHostJSON(_ extra: [String] = [], environment: [String: String] = [:]) throws -> (result: CommandResult, report: [String: Any]) {
        let result = try runHost(["--json"] + extra, environment: environment)
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        return (result, object as? [String: Any] ?? [:])
    }
}

extension [String: Any] {
    /// The `plugins` of a `--json` report.
    var plugins: [[String: Any]] { self["plugins"] as? [[String: Any]] ?? [] }
    /// The `errors` of a `--json` report.
    var errors: [[String: Any]] { self["errors"] as? [[String: Any]] ?? [] }
}
