import Foundation
import PackagePlugin

/// Embeds a plugin's `manifest.json` in the library SwiftPM builds, in the section the host
/// reads: before each build that follows a change to the manifest, the installed
/// `plugin-host embed-manifest` checks it as the host would and writes the Swift constant
/// that holds it. A manifest the host would refuse fails the build, naming what is wrong.
///
/// It also checks the plugin's public API against the build of it installed last, which
/// plugins built against it use (`plugin-host check-api`): within the same major version, a
/// declaration removed or changed fails the build, named.
///
/// The manifest is the target's `manifest.json` (for a package of several plugins; exclude
/// it from the target's sources), else the package's.
@main
struct EmbedPluginManifest: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let candidates = [target.directoryURL, context.package.directoryURL].map { $0.appending(path: "manifest.json") }
        guard let manifest = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw PluginHostToolsError(
                "\(target.name) embeds a plugin manifest, but there is no manifest.json at \(candidates.map(\.path).joined(separator: " or ")); "
                    + "write one (docs/writing-plugins.md, The manifest), or remove the plugin EmbedPluginManifest from \(target.name)")
        }
        let host = Self.installTree.appending(path: "bin/plugin-host")
        guard FileManager.default.isExecutableFile(atPath: host.path) else {
            throw PluginHostToolsError("\(host.path) is missing: PluginHostTools belongs to the plugin-host installed beside it; reinstall plugin-host")
        }
        // The library is named after the product that holds the target (libNAME.so).
        let library = context.package.products.first { product in
            product is LibraryProduct && product.targets.contains { $0.id == target.id }
        }?.name ?? target.name
        let output = context.pluginWorkDirectoryURL.appending(path: "PluginManifest.swift")
        let checked = context.pluginWorkDirectoryURL.appending(path: "PluginAPICheck.swift")
        let sources = target.sourceFiles(withSuffix: "swift").map(\.url)
        // The installed build it is compared with: a new one checks again.
        let installed = ["lib/swift/\(library).swiftinterface", "lib/plugin-host/plugins/lib\(library).so"]
            .map { Self.installTree.appending(path: $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        return [
            .buildCommand(
                displayName: "Embedding \(manifest.lastPathComponent) in lib\(library).so",
                executable: host,
                arguments: ["embed-manifest", manifest.path, "--output", output.path, "--plugin", library],
                inputFiles: [manifest],
                outputFiles: [output]),
            .buildCommand(
                displayName: "Checking the API of \(library) against the build installed last",
                executable: host,
                arguments: ["check-api", manifest.path, "--output", checked.path] + sources.map(\.path),
                inputFiles: [manifest] + sources + installed,
                outputFiles: [checked]),
        ]
    }

    /// The install tree this package is part of: PREFIX of PREFIX/share/plugin-host/PluginHostTools.
    static var installTree: URL {
        var url = URL(fileURLWithPath: #filePath)  // .../PluginHostTools/Plugins/EmbedPluginManifest/this file
        for _ in 0..<6 { url.deleteLastPathComponent() }
        return url
    }
}

struct PluginHostToolsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
