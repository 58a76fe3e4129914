/// `plugin-host embed-manifest MANIFEST --output FILE [--plugin NAME]`: checks a plugin's
/// `manifest.json` as the host reads manifests, and writes the Swift source that embeds it in
/// the library (``ManifestSection``). SwiftPM's build tool plugin `EmbedPluginManifest` runs
/// it before each build that follows a change to the manifest, so a manifest the host would
/// refuse fails the build, naming the file and what is wrong.
struct EmbedManifestCommand {
    let options: EmbedManifestOptions

    func run() -> ExitStatus {
        let manifest = options.manifest
        let bytes: [UInt8]
        do {
            bytes = try ReadOnlyFile(path: manifest).readAll()
        } catch {
            return fail("cannot read \(manifest): \(error.reason); every plugin needs a manifest.json beside its Package.swift")
        }
        guard bytes.count <= ManifestReader.maximumSize else {
            return fail("\(manifest): the manifest is \(bytes.count) bytes; the host reads at most \(ManifestReader.maximumSize)")
        }
        let parsed: PluginManifest
        do {
            parsed = try PluginManifest(json: bytes)
        } catch {
            return fail("\(manifest): \(error)")
        }
        if let plugin = options.plugin, parsed.name != plugin {
            return fail("\(manifest): \"name\" is \"\(parsed.name)\", but it is embedded in lib\(plugin).so; "
                + "plugins that require \(parsed.name) link lib\(parsed.name).so: rename the package's product or the manifest's \"name\" so they agree")
        }
        do {
            try replaceFile(options.output, contents: ManifestSection.swiftSource(embedding: bytes, from: manifest))
        } catch {
            return fail("cannot write \(options.output): \(error.reason)")
        }
        return .success
    }

    private func fail(_ message: String) -> ExitStatus {
        Console.direct.write("plugin-host: error: \(message)\n", to: .error)
        return .failure
    }
}

/// The options of `plugin-host embed-manifest`.
struct EmbedManifestOptions: Equatable {
    /// The manifest to embed: a plugin's `manifest.json`.
    var manifest: String
    /// The Swift file to write.
    var output: String
    /// The plugin the manifest must name, when given: the library is `libNAME.so`.
    var plugin: String?
}
