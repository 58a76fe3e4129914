// swift-tools-version: 6.2
//
// SwiftPM builds PluginABI and PluginHost for the unit tests and for editors. The product
// itself (libPluginABI.so, plugin-host and the plugins) is built by the Makefile, because
// SwiftPM links a target of this package statically into every product that uses it, and
// the host and its plugins must share one dynamic copy of PluginABI (see the README).
import PackageDescription

let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "plugin-host",
    products: [
        .executable(name: "plugin-host", targets: ["PluginHost"]),
        .library(name: "PluginABI", type: .dynamic, targets: ["PluginABI"]),
    ],
    targets: [
        .target(name: "PluginABI", swiftSettings: strict),
        .executableTarget(name: "PluginHost", dependencies: ["PluginABI"], swiftSettings: strict),
        .testTarget(name: "PluginABITests", dependencies: ["PluginABI"], swiftSettings: strict),
        .testTarget(name: "PluginHostTests", dependencies: ["PluginHost", "PluginABI"], swiftSettings: strict),
        .testTarget(name: "IntegrationTests", swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
