import Foundation
import Testing

/// The host and every plugin must use one copy of PluginABI, or `as? Bootstrapping` fails.
@Suite("One shared libPluginABI.so")
struct SharedABITests {
    /// The mangled name of the `Bootstrapping` protocol descriptor.
    private let protocolDescriptor = "$s9PluginABI13BootstrappingMp"

    private func dynamicSymbols(_ file: URL) throws -> [String] {
        let result = try Command.run("/usr/bin/env", ["nm", "-D", file.path])
        #expect(result.status == 0)
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    private func needed(_ file: URL) throws -> [String] {
        let result = try Command.run("/usr/bin/env", ["readelf", "-d", file.path])
        return result.standardOutput.split(separator: "\n").filter { $0.contains("(NEEDED)") }.map(String.init)
    }

    @Test("the host and every demo plugin link libPluginABI.so dynamically and define no copy of Bootstrapping")
    func oneCopy() throws {
        let abi = Repository.root.appending(path: "build/lib/libPluginABI.so")
        #expect(try dynamicSymbols(abi).contains { $0.hasSuffix(" R \(protocolDescriptor)") || $0.hasSuffix(" D \(protocolDescriptor)") })
        for image in [Repository.host] + ["Persistence", "Domain", "Application"].map(Repository.demoPlugin) {
            #expect(try needed(image).contains { $0.contains("[libPluginABI.so]") }, "\(image.path)")
            let definitions = try dynamicSymbols(image).filter { $0.hasSuffix(protocolDescriptor) && !$0.contains(" U ") }
            #expect(definitions.isEmpty, "\(image.path) defines its own Bootstrapping: \(definitions)")
        }
    }

    @Test("through the real binary, each plugin's object is the host's Bootstrapping")
    func castSucceeds() throws {
        let result = try PluginDirectoryFixture.demo().runHost()
        #expect(result.status == 0)
        #expect(!result.standardError.contains("does not conform to PluginABI.Bootstrapping"))
        #expect(result.standardOutput.contains("Bootstrapped 3 plugins"))
    }
}
