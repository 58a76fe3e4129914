/// `plugin-host check-api MANIFEST (--interface FILE.swiftinterface | SOURCE.swift...)
/// [--dir DIR] [--output FILE.swift]`: checks that a plugin being built keeps the public API of
/// the build of it installed last in a plugin directory (``APICompatibility``), which the
/// plugins built against it use.
///
/// The installed build is the one in the plugin directory (`--dir`, else the install tree's):
/// its manifest's version, and the module interface `install` kept with it
/// (``InstalledInterfaces``), never another directory's. The new interface is the one given, or the one the
/// compiler emits from the sources. The toolchain's `swift-api-digester` compares the two as
/// library evolution judges them; a break fails, naming each declaration. A new major version,
/// or no installed build, passes. The Makefile of `plugin-host new` runs it after compiling;
/// SwiftPM's build tool plugin runs it with the sources, and `--output` writes the file that
/// SwiftPM expects of it.
struct CheckAPICommand {
    let options: CheckAPIOptions
    /// The install tree whose build of the plugin is the baseline.
    let installPrefix: String?

    func run() -> ExitStatus {
        let parsed: PluginManifest
        do {
            parsed = try PluginManifest(json: try ReadOnlyFile(path: options.manifest).readAll())
        } catch let error as SystemError {
            return fail("cannot read \(options.manifest): \(error.reason)")
        } catch {
            return fail("\(options.manifest): \(error)")
        }
        let name = parsed.name
        guard let prefix = installPrefix else { return fail("cannot tell which install tree this plugin-host belongs to") }
        let directory = options.directory ?? prefix + "/lib/plugin-host/plugins"
        let interfaces = InstalledInterfaces(directory: directory)
        guard let (version, baseline) = interfaces.baseline(of: name) else {
            if interfaces.isInstalled(name) {
                return pass("\(name) \(parsed.version): the build of \(name) in \(directory) was not installed with plugin-host install, "
                    + "so no interface of it is kept (\(interfaces.folder)) to compare with")
            }
            return pass("\(name) \(parsed.version): no build of \(name) is installed in \(directory) to compare with")
        }
        guard APICompatibility.mustKeep(installed: version, building: parsed.version) else {
            return pass("\(name) \(parsed.version) is a new major version after the installed \(version): "
                + "its API may change, and plugins that require ^\(version) refuse it until they are rebuilt")
        }
        do {
            let report = try compare(name: name, baseline: baseline, modulesIn: prefix + "/lib/swift")
            let breaks = APICompatibility.breaks(inReport: report)
            guard breaks.isEmpty else {
                removeOutput()
                return fail(
                    "\(name) \(parsed.version) breaks the API of \(name) \(version), installed in \(directory), "
                        + "which plugins built against it use (\(baseline)):\n"
                        + breaks.map { "  \($0)\n" }.joined()
                        + "Keep what was published (add beside it, deprecate instead of removing), or make this build a new major "
                        + "version in manifest.json (\"version\": \"\(nextMajor(after: version))\"), which the plugins "
                        + "that require ^\(version) refuse until they are rebuilt against it")
            }
            let added = APICompatibility.additions(inReport: report)
            return pass("\(name) \(parsed.version) keeps the API of the installed \(version) (\(added) \(added == 1 ? "declaration" : "declarations") added)")
        } catch {
            removeOutput()
            return fail(error.description)
        }
    }

    /// The digester's report on the new interface against `baseline`.
    private func compare(name: String, baseline: String, modulesIn modules: String) throws(ToolFailure) -> String {
        let scratch: String
        do {
            scratch = try makeTemporaryDirectory(for: "check-api")
        } catch {
            throw ToolFailure(description: "cannot create a temporary directory: \(error)")
        }
        defer { removeTree(scratch) }
        // Each interface is read from a directory of its own, and the modules it imports from
        // another holding every installed interface but the plugin's, so that the digester
        // never picks the other build of the plugin.
        let (old, new, dependencies) = (scratch + "/installed", scratch + "/building", scratch + "/modules")
        do {
            for directory in [old, new, dependencies] { try makeDirectory(directory) }
            try copy(baseline, to: old + "/" + name + ".swiftinterface")
            for file in try directoryEntries(at: modules)
            where file.hasSuffix(".swiftinterface") && file.split(separator: ".").count == 2 && file != name + ".swiftinterface" {
                try copy(modules + "/" + file, to: dependencies + "/" + file)
            }
            if let interface = options.interface {
                try copy(interface, to: new + "/" + name + ".swiftinterface")
            }
        } catch {
            throw ToolFailure(description: "cannot prepare the comparison: \(error)")
        }
        if options.interface == nil {
            try runTool(Process.environment("SWIFTC") ?? "swiftc", [
                "-swift-version", "6", "-parse-as-library", "-enable-library-evolution", "-module-name", name, "-emit-module",
                "-emit-module-path", scratch + "/" + name + ".swiftmodule", "-emit-module-interface-path", new + "/" + name + ".swiftinterface",
                "-I", dependencies,
            ] + options.sources, log: scratch + "/swiftc.txt", doing: "emit the interface of \(name) from its sources")
        }
        let digester = Process.environment("SWIFT_API_DIGESTER") ?? "swift-api-digester"
        let module = ["-abi", "-module", name, "-use-interface-for-module", name]
        try runTool(digester, ["-dump-sdk"] + module + ["-I", old, "-I", dependencies, "-o", scratch + "/installed.json"],
                    log: scratch + "/digester.txt", doing: "read the installed interface \(baseline)")
        try runTool(digester, ["-diagnose-sdk", "-baseline-path", scratch + "/installed.json"] + module
                        + ["-I", new, "-I", dependencies, "-o", scratch + "/report.txt"],
                    log: scratch + "/digester.txt", doing: "compare the interface of \(name) with \(baseline)")
        do {
            return String(decoding: try ReadOnlyFile(path: scratch + "/report.txt").readAll(), as: UTF8.self)
        } catch {
            throw ToolFailure(description: "cannot read the digester's report: \(error)")
        }
    }

    /// Runs a tool of the toolchain; its output is shown only when it fails.
    private func runTool(_ tool: String, _ arguments: [String], log: String, doing what: String) throws(ToolFailure) {
        let ending: Termination
        do {
            ending = try ChildProgram.run(tool, arguments, outputTo: log)
        } catch {
            throw ToolFailure(description: "cannot run \(tool) to \(what): \(error.reason); the API check needs the Swift "
                + "toolchain's swiftc and swift-api-digester on PATH (or SWIFTC and SWIFT_API_DIGESTER)")
        }
        guard ending == .exited(0) else {
            let output = (try? ReadOnlyFile(path: log).readAll()).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let how = switch ending {
            case .exited(let status): "exit status \(status)"
            case .signalled(let signal): "ended by signal \(signal.rawValue)"
            }
            throw ToolFailure(description: "\(tool) could not \(what) (\(how)):\n\(output)")
        }
    }

    private func copy(_ source: String, to destination: String) throws(SystemError) {
        try replaceFile(destination, contents: String(decoding: try ReadOnlyFile(path: source).readAll(), as: UTF8.self))
    }

    private func nextMajor(after version: SemanticVersion) -> String {
        version.major == 0 ? "0.\(version.minor + 1).0" : "\(version.major + 1).0.0"
    }

    private func pass(_ message: String) -> ExitStatus {
        if let output = options.output {
            do {
                try replaceFile(output, contents: "// Generated by `plugin-host check-api`: \(message.replacingNewlines)\n")
            } catch {
                return fail("cannot write \(output): \(error.reason)")
            }
        }
        Console.direct.write("check-api: \(message)\n", to: .output)
        return .success
    }

    private func removeOutput() {
        if let output = options.output { removeTree(output) }
    }

    private func fail(_ message: String) -> ExitStatus {
        Console.direct.write("plugin-host: error: \(message)\n", to: .error)
        return .failure
    }

    private struct ToolFailure: Error, CustomStringConvertible {
        let description: String
    }
}

/// The options of `plugin-host check-api`.
struct CheckAPIOptions: Equatable {
    /// The plugin's `manifest.json`: its name and the version being built.
    var manifest: String
    /// The module interface of the build, when it is built already.
    var interface: String?
    /// The sources to emit the interface from, when no interface is given.
    var sources: [String] = []
    /// A Swift file to write when the check passes (SwiftPM requires a build command's output).
    var output: String?
    /// The plugin directory whose installed build is the baseline; by default the install tree's.
    var directory: String?
}

extension String {
    fileprivate var replacingNewlines: String { split(separator: "\n").joined(separator: " ") }
}
