/// The module interface of each plugin installed into a plugin directory, kept with the
/// directory (`DIR/.api/NAME@VERSION.swiftinterface`): the API `install --dir DIR` and
/// `check-api --dir DIR` compare a new build of the plugin with. Each directory keeps its own,
/// so that installing a build into one directory never moves the baseline of another, and the
/// shell an operator installs from and the service that runs the directory agree on it
/// without sharing a state directory. The interface the plugins build against stays in the
/// install tree's `lib/swift`.
struct InstalledInterfaces {
    /// The plugin directory.
    let directory: String

    /// Where the interfaces are kept.
    var folder: String { directory + "/.api" }

    /// The interface kept of the build of `name` installed now (the version its file in the
    /// directory says), if that build was installed with its interface.
    func baseline(of name: String) -> (version: SemanticVersion, path: String)? {
        guard let installed = NewPluginCommand.installedManifest(of: name, pluginsIn: directory) else { return nil }
        let path = self.path(of: name, version: installed.version)
        guard (try? FileStatus(path: path))?.kind == .regular else { return nil }
        return (installed.version, path)
    }

    /// Whether a build of `name` is installed in the directory, with its interface kept or not.
    func isInstalled(_ name: String) -> Bool {
        NewPluginCommand.installedManifest(of: name, pluginsIn: directory) != nil
    }

    /// The interface `text` of `name` `version`, written beside its place and not yet renamed in.
    ///
    /// - Throws: ``SystemError`` when the folder cannot be made or the file written.
    func stage(_ text: [UInt8], of name: String, version: SemanticVersion) throws(SystemError) -> StagedFile {
        try makeDirectory(folder)
        return try StagedFile.stage(text, as: path(of: name, version: version), mode: 0o644)
    }

    /// Removes the interfaces of `name` but the one of `version`: the build installed now.
    func removeOthers(of name: String, keeping version: SemanticVersion) {
        let kept = path(of: name, version: version)
        for entry in (try? directoryEntries(at: folder)) ?? [] where entry.hasPrefix(name + "@") && entry.hasSuffix(".swiftinterface") {
            let path = folder + "/" + entry
            if path != kept { removeFile(path) }
        }
    }

    private func path(of name: String, version: SemanticVersion) -> String {
        folder + "/" + name + "@" + version.description + ".swiftinterface"
    }
}
