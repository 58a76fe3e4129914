/// Why the manifest of a plugin file could not be read.
enum ManifestError: Error, Equatable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(SystemError)
    /// The file is not a 64-bit ELF shared object for this machine.
    case notSharedObject(ELFError)
    /// The file is a shared object without a manifest section.
    case missing
    /// The manifest section is there, but its contents are wrong.
    case malformed(String)

    var description: String {
        switch self {
        case .unreadable(let error): "cannot read the file: \(error); check that it exists and the host's user may read it"
        case .notSharedObject(let error):
            "not a loadable ELF shared object: \(error); only plugins belong in a plugin directory: remove the file, "
                + "or replace it with the plugin built as a 64-bit shared object for this machine"
        case .missing:
            "no plugin manifest: the file has no \(ManifestReader.sectionName) section; "
                + "build the plugin with the Package.swift or Makefile `plugin-host new` writes, which embed its manifest.json "
                + "(docs/writing-plugins.md)"
        case .malformed(let reason):
            "malformed plugin manifest: \(reason); fix the plugin's manifest.json and rebuild it (docs/writing-plugins.md, The manifest)"
        }
    }
}
