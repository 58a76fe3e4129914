/// A plugin file whose manifest has been read: known, but not loaded.
struct PluginCandidate: Equatable, Sendable {
    /// The path of the `.so` file, as found in the plugin directory.
    let file: String
    let manifest: PluginManifest
    /// Files of later directories of the search path that declare the same name, and are
    /// not used.
    var shadowed: [String] = []
    /// The addresses the file's loadable segments occupy, relative to its load base.
    var loadedSpan: Range<UInt64>?

    init(file: String, manifest: PluginManifest, shadowed: [String] = [], loadedSpan: Range<UInt64>? = nil) {
        self.file = file
        self.manifest = manifest
        self.shadowed = shadowed
        self.loadedSpan = loadedSpan
    }

    var name: String { manifest.name }

    /// The plugin as the operator reads it: `Domain (plugins/libDomain.so)`.
    var label: String { "\(manifest.name) (\(file))" }
}
