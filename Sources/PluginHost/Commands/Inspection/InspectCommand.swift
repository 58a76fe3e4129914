import PluginABI

/// `plugin-host inspect FILE`: everything the manifest of one plugin file holds, with the
/// file's path, size and modification time, without loading it.
struct InspectCommand {
    let file: String
    let json: Bool

    func run() -> ExitStatus {
        let status: FileStatus
        do {
            status = try FileStatus(path: file)
        } catch {
            Console.direct.write("plugin-host: error: cannot inspect \(file): \(error)\n", to: .error)
            return .failure
        }
        let path = (try? resolvedPath(file)) ?? file
        let modified = TextFormat.utc(status.modificationTime)
        let plugin: Result<ManifestReader.Plugin, ManifestError>
        do {
            let opened = try ReadOnlyFile(path: file)
            plugin = Result { () throws(ManifestError) in try ManifestReader.plugin(in: opened, size: UInt64(max(status.size, 0))) }
        } catch {
            plugin = .failure(.unreadable(error))
        }
        switch plugin {
        case .success(let plugin):
            write(path: path, size: status.size, modified: modified, manifest: plugin.manifest, needed: plugin.needed)
            return .success
        case .failure(let error):
            // What can be said of a file whose manifest is not usable: the file, the problem,
            // and the manifest as stored when there is one.
            let stored = ManifestReader.storedManifest(at: file).map { bytes in
                String(decoding: bytes.prefix(4096).reversed().drop { $0 == 0x0A || $0 == 0x20 }.reversed(), as: UTF8.self)
            }
            if json {
                Console.direct.write(JSONOutput.object([
                    ("file", .string(path)),
                    ("size", .number(Double(status.size))),
                    ("modified", .string(modified)),
                    ("problem", .string("\(error)")),
                    ("storedManifest", stored.map(JSONOutput.string) ?? .null),
                ]).rendered() + "\n", to: .output)
            } else {
                Console.direct.write(
                    "file:      \(path)\nsize:      \(status.size) bytes\nmodified:  \(modified)\n"
                        + "problem:   \(error)\n" + (stored.map { "manifest:  \($0) (as stored)\n" } ?? ""), to: .output)
            }
            Console.direct.write("plugin-host: error: \(file): \(error)\n", to: .error)
            return .failure
        }
    }

    private func write(path: String, size: Int64, modified: String, manifest: PluginManifest, needed: [String]) {
        if json {
            Console.direct.write(JSONOutput.object([
                ("file", .string(path)),
                ("size", .number(Double(size))),
                ("modified", .string(modified)),
                ("name", .string(manifest.name)),
                ("version", .string(manifest.version.description)),
                ("abi", .number(Double(manifest.abi))),
                ("requires", .array(manifest.requires.map(JSONOutput.string))),
                ("optional", .array(manifest.optional.map(JSONOutput.string))),
                ("links", .array(needed.map(JSONOutput.string))),
                ("manifest", manifest.raw),
            ]).rendered() + "\n", to: .output)
        } else {
            var text = ""
            text += "file:      \(path)\n"
            text += "size:      \(size) bytes\n"
            text += "modified:  \(modified)\n"
            text += "name:      \(manifest.name)\n"
            text += "version:   \(manifest.version)\n"
            text += "abi:       \(manifest.abi) (this host: \(PluginABIVersion.current))\n"
            text += "requires:  \(manifest.requires.isEmpty ? "-" : manifest.requires.joined(separator: ", "))\n"
            text += "optional:  \(manifest.optional.isEmpty ? "-" : manifest.optional.joined(separator: ", "))\n"
            text += "links:     \(needed.isEmpty ? "-" : needed.joined(separator: ", "))\n"
            text += "manifest:  \(manifest.raw.rendered())\n"
            Console.direct.write(text, to: .output)
        }
    }
}
