/// `plugin-host inspect FILE`: everything the manifest of one plugin file holds, with the
/// file's path, size and modification time, without loading it.
struct InspectCommand {
    let file: String
    let json: Bool

    func run() -> ExitStatus {
        let status: FileStatus
        let manifest: PluginManifest
        do {
            status = try FileStatus(path: file)
        } catch {
            Console.direct.write("plugin-host: error: cannot inspect \(file): \(error)\n", to: .error)
            return .failure
        }
        do {
            manifest = try ManifestReader.manifest(at: file)
        } catch {
            Console.direct.write("plugin-host: error: \(file): \(error)\n", to: .error)
            return .failure
        }
        let path = (try? resolvedPath(file)) ?? file
        let modified = TimeFormat.utc(status.modificationTime)
        if json {
            Console.direct.write(JSONOutput.object([
                ("file", .string(path)),
                ("size", .number(Double(status.size))),
                ("modified", .string(modified)),
                ("name", .string(manifest.name)),
                ("version", .string(manifest.version.description)),
                ("abi", .number(Double(manifest.abi))),
                ("requires", .array(manifest.requires.map(JSONOutput.string))),
                ("optional", .array(manifest.optional.map(JSONOutput.string))),
                ("manifest", manifest.raw),
            ]).rendered() + "\n", to: .output)
        } else {
            var text = ""
            text += "file:      \(path)\n"
            text += "size:      \(status.size) bytes\n"
            text += "modified:  \(modified)\n"
            text += "name:      \(manifest.name)\n"
            text += "version:   \(manifest.version)\n"
            text += "abi:       \(manifest.abi) (this host: \(HelpText.abiVersion))\n"
            text += "requires:  \(manifest.requires.isEmpty ? "-" : manifest.requires.joined(separator: ", "))\n"
            text += "optional:  \(manifest.optional.isEmpty ? "-" : manifest.optional.joined(separator: ", "))\n"
            text += "manifest:  \(manifest.raw.rendered())\n"
            Console.direct.write(text, to: .output)
        }
        return .success
    }
}
