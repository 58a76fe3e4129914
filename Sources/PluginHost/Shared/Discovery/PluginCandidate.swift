/// A plugin file whose manifest has been read: known, but not loaded.
struct PluginCandidate: Equatable, Sendable {
    /// The path of the `.so` file, as found in the plugin directory: what reports show.
    let file: String
    /// The same file as an absolute path, through the resolved plugin directory: what is
    /// loaded, whatever working directory plugin code moved the process to.
    let path: String
    let manifest: PluginManifest
    /// Files of later directories of the search path that declare the same name, and are
    /// not used.
    var shadowed: [String] = []
    /// Where the file's loadable segments lie once mapped, relative to its load base.
    var segments: ELFImage.Segments?
    /// The libraries the file links (`DT_NEEDED`), such as `libDomain.so`.
    var needed: [String]
    /// The file as it was when its manifest was read: which file, how large, when changed.
    var status: FileStatus?

    init(
        file: String, path: String? = nil, manifest: PluginManifest, shadowed: [String] = [], segments: ELFImage.Segments? = nil,
        needed: [String] = [], status: FileStatus? = nil
    ) {
        self.file = file
        self.path = path ?? file
        self.manifest = manifest
        self.shadowed = shadowed
        self.segments = segments
        self.needed = needed
        self.status = status
    }

    var name: String { manifest.name }

    /// The last component of ``file``: `libDomain.so`.
    var fileName: Substring {
        guard let slash = file.utf8.lastIndex(of: UInt8(ascii: "/")) else { return file[...] }
        return file[file.utf8.index(after: slash)...]
    }

    /// Whether the file is named `lib<name>.so`, as plugins that link it expect.
    var isNamedAfterItsPlugin: Bool {
        let fileName = fileName.utf8
        let name = manifest.name.utf8
        return fileName.count == name.count + 6 && fileName.prefix(3).elementsEqual("lib".utf8)
            && fileName.dropFirst(3).prefix(name.count).elementsEqual(name) && fileName.suffix(3).elementsEqual(".so".utf8)
    }

    /// The plugin as the operator reads it: `Domain (plugins/libDomain.so)`.
    var label: String { "\(manifest.name) (\(file))" }

    /// A problem of this plugin, `message`, which names it for the operator; the report
    /// also keeps its name and file apart.
    func problem(_ code: Problem.Code, _ message: String) -> Problem {
        Problem(code, plugin: name, file: file, message)
    }
}
