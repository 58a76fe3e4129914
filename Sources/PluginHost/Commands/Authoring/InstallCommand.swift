import PluginABI

/// `plugin-host install FILE.so [--interface FILE.swiftinterface] [--dir DIR]`: puts a built
/// plugin into a plugin directory (the install tree's by default) the way it must be done,
/// or refuses and changes nothing.
///
/// Before anything is written, the plugin is checked against what the directory holds, as
/// `check` would: it is a plugin, of this host's ABI; no other file of the directory is the
/// same plugin; every plugin's requirements and version ranges still hold with it in place of
/// the build installed; and its module interface keeps the API of the build installed last
/// in that directory (`check-api --dir`). Then its library and its interface (into the install
/// tree's `lib/swift`, for the plugins built against it, and kept with the directory as the
/// next install's baseline, ``InstalledInterfaces``) are each written to a temporary file
/// beside their target and renamed over it: a new inode, so a running worker's mapped code is
/// never rewritten, and a watching host sees one change, never a half-written file.
struct InstallCommand {
    let options: InstallOptions
    /// The install tree: its plugin directory is the default, its `lib/swift` receives the
    /// interface and holds the baseline of the API check.
    let installPrefix: String?

    private var console: Console { .direct }

    func run() -> ExitStatus {
        guard let prefix = installPrefix else { return refuse("cannot tell which install tree this plugin-host belongs to") }
        let directory = options.directory ?? prefix + "/lib/plugin-host/plugins"
        let modules = prefix + "/lib/swift"

        let incoming: PluginCandidate
        switch PluginDirectory.readHeldBuild(at: options.file, shownAs: options.file) {
        case .success(let candidate): incoming = candidate
        case .failure(let problem): return refuse(problem.message + "; build it with make or SwiftPM, then install the library it made")
        }
        let name = incoming.name
        guard (try? FileStatus(path: directory))?.kind == .directory else {
            return refuse("\(directory) is not a directory; give the plugin directory with --dir, or create it")
        }
        guard let interface = options.interface ?? interfaceBeside(options.file, of: name) else {
            return refuse("no module interface of \(name) beside \(options.file) (\(name).swiftinterface, or Modules/\(name).swiftinterface "
                + "as SwiftPM writes it); give it with --interface FILE.swiftinterface: the plugins built against \(name) need it")
        }
        guard let text = try? ReadOnlyFile(path: interface).readAll(), String(decoding: text.prefix(4096), as: UTF8.self).contains("-module-name \(name)")
        else {
            return refuse("\(interface) is not the module interface of \(name) (no \"-module-name \(name)\" in its header)")
        }
        let target = directory + "/lib\(name).so"

        // The directory as it is, and with the plugin in place of the build installed.
        let scan = PluginDirectory(path: directory).scan()
        if let other = scan.candidates.first(where: { $0.name == name && $0.path != target && $0.file != target }) {
            return refuse("plugin \(name) is installed already as \(other.file); remove that file first, so that the directory holds one \(name)")
        }
        if let occupant = scan.candidates.first(where: { ($0.path == target || $0.file == target) && $0.name != name }) {
            return refuse("\(target) holds plugin \(occupant.name), not \(name); a plugin's file is named lib\(name).so after it")
        }
        let withIt = scan.candidates.filter { $0.name != name } + [incoming]
        let resolver = DependencyResolver(abiVersion: PluginABIVersion.current)
        let before = Set(resolver.resolve(scan.candidates).problems.map(\.message))
        let after = resolver.resolve(withIt).problems.filter { !before.contains($0.message) }
        guard after.isEmpty else {
            return refuse("with \(name) \(incoming.manifest.version) installed, \(directory) would not bootstrap:\n"
                + after.map { "  \($0.message)\n" }.joined() + "nothing was installed")
        }
        guard checkAPI(of: incoming, interface: interface, prefix: prefix, directory: directory) else { return .failure }

        // Both are staged before either goes in; the interface goes in first, so that the
        // library a watching host sees next has its interface already.
        let library: [UInt8]
        do {
            library = try ReadOnlyFile(path: options.file).readAll()
        } catch {
            return refuse("cannot read \(options.file): \(error.reason)")
        }
        var staged: [StagedFile] = []
        let interfaces = InstalledInterfaces(directory: directory)
        do {
            staged.append(try StagedFile.stage(text, as: modules + "/\(name).swiftinterface", mode: 0o644))
            staged.append(try interfaces.stage(text, of: name, version: incoming.manifest.version))
            staged.append(try StagedFile.stage(library, as: target, mode: 0o755))
        } catch {
            for file in staged { file.discard() }
            return refuse("cannot write \(error.path ?? "the files"): \(error.reason)")
        }
        let replaced = scan.candidates.first { $0.name == name }?.manifest.version
        do {
            for file in staged { try file.commit() }
        } catch {
            for file in staged { file.discard() }
            return refuse("\(error)")
        }
        interfaces.removeOthers(of: name, keeping: incoming.manifest.version)
        console.write("installed \(name) \(incoming.manifest.version)" + (replaced.map { " (was \($0))" } ?? "")
            + ": \(target), \(modules)/\(name).swiftinterface\n", to: .output)
        return .success
    }

    /// The interface a build wrote beside its library: make's (`NAME.swiftinterface`) or
    /// SwiftPM's (`Modules/NAME.swiftinterface`).
    private func interfaceBeside(_ file: String, of name: String) -> String? {
        let directory = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
        let candidates: [String] = ["\(directory)/\(name).swiftinterface", "\(directory)/Modules/\(name).swiftinterface"]
        return candidates.first { path in (try? FileStatus(path: path))?.kind == .regular }
    }

    /// `check-api` on the interface against the build installed last; says why it fails.
    private func checkAPI(of plugin: PluginCandidate, interface: String, prefix: String, directory: String) -> Bool {
        let scratch: String
        do {
            scratch = try makeTemporaryDirectory(for: "install")
            try replaceFile(scratch + "/manifest.json", contents: plugin.manifest.raw.rendered())
        } catch {
            _ = refuse("cannot check the API of \(plugin.name): \(error)")
            return false
        }
        defer { removeTree(scratch) }
        let check = CheckAPIOptions(manifest: scratch + "/manifest.json", interface: interface, directory: directory)
        guard CheckAPICommand(options: check, installPrefix: prefix).run() == .success else {
            console.write("plugin-host: install refused; nothing was installed\n", to: .error)
            return false
        }
        return true
    }

    private func refuse(_ message: String) -> ExitStatus {
        console.write("plugin-host: error: \(message)\n", to: .error)
        if !message.hasSuffix("nothing was installed") { console.write("plugin-host: install refused; nothing was installed\n", to: .error) }
        return .failure
    }
}

/// The options of `plugin-host install`.
struct InstallOptions: Equatable {
    /// The plugin's library, as built.
    var file: String
    /// Its module interface; by default the one beside the library.
    var interface: String?
    /// The plugin directory; by default the install tree's.
    var directory: String?
}
