// swift-tools-version: 6.1
// What plugin-host gives SwiftPM packages of plugins, installed with the host in
// PREFIX/share/plugin-host/PluginHostTools: the build tool plugin EmbedPluginManifest,
// which embeds a plugin's manifest.json in the library it builds.
import PackageDescription

let package = Package(
    name: "PluginHostTools",
    products: [.plugin(name: "EmbedPluginManifest", targets: ["EmbedPluginManifest"])],
    targets: [.plugin(name: "EmbedPluginManifest", capability: .buildTool())]
)
