/// `plugin-host new NAME [--requires A,B] [--optional C] [--service] [--into DIR]`: writes a plugin
/// project that builds, tests and installs against the installed host with no edit, with
/// SwiftPM (`swift build`, `swift test`) or with make.
///
/// For each plugin it requires, the project links it, and its component looks it up through
/// the protocol that plugin's component conforms to and its module exports (read from the
/// installed module interface); the test stands in for it with a class of stub members.
struct NewPluginCommand {
    let options: NewPluginOptions
    /// The install tree of this host, written into the project's Package.swift and Makefile.
    let installPrefix: String?

    func run() -> ExitStatus {
        let name = options.name
        let directory = (options.parent.hasSuffix("/") ? options.parent : options.parent + "/") + name
        let prefix = installPrefix ?? "/usr/local"
        var notes: [String] = []
        let requires = options.requires.map { required -> PluginTemplate.Dependency in
            var dependency = Self.dependency(required, modulesIn: prefix + "/lib/swift")
            dependency.version = Self.installedManifest(of: required, pluginsIn: prefix + "/lib/plugin-host/plugins")?.version
            if dependency.installed, dependency.exported == nil {
                notes.append("\(required) exports no protocol of its component that a test can stand in for; "
                    + "\(name) links it, and Sources/\(name)/\(name)Bootstrapping.swift says where to look it up (by its class, "
                    + "or by a protocol from a library both plugins link)")
            }
            return dependency
        }
        // A project that imports a module nobody installed cannot build: refused, nothing written.
        let missing = requires.filter { !$0.installed }.map(\.name)
        guard missing.isEmpty else {
            Console.direct.write(
                "plugin-host: error: \(missing.joined(separator: ", ")) \(missing.count == 1 ? "is" : "are") not installed in \(prefix) "
                    + "(looked for " + missing.map { "lib/swift/\($0).swiftinterface" }.joined(separator: ", ") + "); \(name) would import and link "
                    + (missing.count == 1 ? "it" : "them") + " and could not build. Install "
                    + (missing.count == 1 ? "it" : "them") + " there first (plugin-host install), or run the plugin-host of the install tree "
                    + "that has \(missing.count == 1 ? "it" : "them"); nothing was written\n", to: .error)
            return .failure
        }
        var template = PluginTemplate(name: name, requires: requires, optional: options.optional, service: options.service, prefix: prefix)
        template.links = Self.links(of: options.requires, pluginsIn: prefix + "/lib/plugin-host/plugins")
        let files = template.files
        // Nothing is written into a directory that holds any of the project's files.
        if let existing = files.map({ directory + "/" + $0.path }).first(where: { (try? FileStatus(path: $0)) != nil }) {
            Console.direct.write(
                "plugin-host: error: \(existing) exists; plugin-host new does not overwrite a project: "
                    + "remove \(directory) or choose another name or --into directory\n", to: .error)
            return .failure
        }
        do {
            try makeDirectories(options.parent)
            try makeDirectory(directory)
            for subdirectory in template.directories { try makeDirectory(directory + "/" + subdirectory) }
            for (path, contents) in files {
                try writeNewFile(directory + "/" + path, contents: contents)
            }
        } catch where error.isExistingFile {
            Console.direct.write(
                "plugin-host: error: \(error.path ?? directory) exists; plugin-host new does not overwrite a project: "
                    + "remove \(directory) or choose another name or --into directory\n", to: .error)
            return .failure
        } catch {
            Console.direct.write("plugin-host: error: cannot write the plugin project: \(error)\n", to: .error)
            return .failure
        }
        Console.direct.write(Diagnostics.text(notes: notes, warnings: []), to: .error)
        let plugins = prefix + "/lib/plugin-host/plugins"
        Console.direct.write(
            "Created plugin \(name) in \(directory):\n"
                + files.map { "  \($0.path)\n" }.joined()
                + "With SwiftPM (cd \(directory)):\n"
                + "  swift build              build .build/debug/lib\(name).so\n"
                + "  swift test               run its tests\n"
                + "  swift build -c release && \(prefix)/bin/plugin-host install .build/release/lib\(name).so\n"
                + "                           checked, with its interface, renamed into \(plugins)\n"
                + "With make:\n"
                + "  make -C \(directory)         build build/lib\(name).so\n"
                + "  make -C \(directory) test    run its tests\n"
                + "  make -C \(directory) install (plugin-host install) into \(plugins)\n", to: .output)
        return .success
    }

    /// `required` and the plugins they require, directly or not, as the manifests of the
    /// plugins installed in `directory` say (read without loading them); a plugin not
    /// installed there is linked as named.
    static func links(of required: [String], pluginsIn directory: String) -> [String] {
        var links: [String] = []
        var queue = required
        while !queue.isEmpty {
            let name = queue.removeFirst()
            guard !links.contains(name) else { continue }
            links.append(name)
            guard let manifest = installedManifest(of: name, pluginsIn: directory) else { continue }
            queue += manifest.requires
        }
        return links
    }

    /// The manifest of plugin `name` installed in `directory`, read without loading it.
    static func installedManifest(of name: String, pluginsIn directory: String) -> PluginManifest? {
        let file = directory + "/lib" + name + ".so"
        guard let opened = try? ReadOnlyFile(path: file), let status = try? opened.status(),
            let plugin = try? ManifestReader.plugin(in: opened, size: UInt64(max(status.size, 0)))
        else { return nil }
        return plugin.manifest
    }

    /// What the installed module interface of plugin `name` says others can use.
    static func dependency(_ name: String, modulesIn directory: String) -> PluginTemplate.Dependency {
        guard let bytes = try? ReadOnlyFile(path: directory + "/" + name + ".swiftinterface").readAll() else {
            return PluginTemplate.Dependency(name: name, installed: false, exported: nil)
        }
        let interface = ModuleInterface(module: name, text: String(decoding: bytes, as: UTF8.self))
        for protocolName in interface.component?.protocols ?? [] {
            if let standIn = interface.standInMembers(of: protocolName) {
                return PluginTemplate.Dependency(name: name, installed: true, exported: (protocolName, standIn))
            }
        }
        return PluginTemplate.Dependency(name: name, installed: true, exported: nil)
    }
}

/// The options of `plugin-host new`.
struct NewPluginOptions: Equatable {
    var name: String
    var requires: [String] = []
    /// Plugins used when they are installed.
    var optional: [String] = []
    /// Whether the component runs a service that handles readiness, health and drain.
    var service = false
    /// The directory to write the project's directory into.
    var parent = "."
}
