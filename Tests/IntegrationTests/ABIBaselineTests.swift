import Foundation
import Testing

/// `make abi-check`: PluginABI's public interface against the baseline of ABI 2 as it was
/// published (Tests/Baselines/PluginABI-2.0), judged by the toolchain's swift-api-digester.
/// The ABI is built here from a copy of its sources, changed as a careless edit would change it.
@Suite("The published ABI: a change library evolution forbids fails the check, naming the declaration")
struct ABIBaselineTests {
    @Test("the ABI as it is passes")
    func asItIs() throws {
        let result = try check(Repository.root.appending(path: "build/lib/swift"))
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("PluginABI: compatible with "))
    }

    @Test("a public declaration removed (made internal) fails, naming it; one added passes")
    func removalFailsAdditionPasses() throws {
        let removed = try build(changing: { sources in
            try edit(sources.appending(path: "Settings.swift"), replacing: "public func string(_ key: String)", with: "func string(_ key: String)")
        })
        let broken = try check(removed)
        #expect(broken.status == 1, "\(broken.standardOutput)\(broken.standardError)")
        #expect(broken.standardOutput.contains("Func Settings.string(_:) has been removed"), "\(broken.standardOutput)")
        #expect(broken.standardOutput.contains("Keep what was published"))

        let added = try build(changing: { sources in
            let file = sources.appending(path: "Settings.swift")
            let text = try String(contentsOf: file, encoding: .utf8)
            try (text + "\nextension Settings {\n    public func plantedAddition() -> Int { 0 }\n}\n").write(to: file, atomically: true, encoding: .utf8)
        })
        let compatible = try check(added)
        #expect(compatible.status == 0, "\(compatible.standardOutput)\(compatible.standardError)")
    }

    /// Builds the interface of PluginABI from a copy of its sources, changed by `change`; the
    /// directory that holds it.
    private func build(changing change: (URL) throws -> Void) throws -> URL {
        let scratch = try Scratch.directory(named: "abi")
        let sources = scratch.appending(path: "Sources")
        try FileManager.default.copyItem(at: Repository.root.appending(path: "Sources/PluginABI"), to: sources)
        try change(sources)
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }.sorted()
        let module = scratch.appending(path: "module")
        let result = try Command.run("/usr/bin/env", [
            "swiftc", "-swift-version", "6", "-parse-as-library", "-enable-library-evolution", "-package-name", "plugin_host",
            "-module-name", "PluginABI", "-emit-module", "-emit-module-path", module.appending(path: "PluginABI.swiftmodule").path,
            "-emit-module-interface-path", module.appending(path: "PluginABI.swiftinterface").path,
        ] + files.map { sources.appending(path: $0).path })
        guard result.status == 0 else { throw CommandFailure(command: "swiftc", result: result) }
        return module
    }

    private func check(_ interfaces: URL) throws -> CommandResult {
        try Command.run(Repository.root.appending(path: "Support/abi/check-abi.sh").path, [
            Repository.root.appending(path: "Tests/Baselines/PluginABI-2.0").path, interfaces.path, "PluginABI",
        ])
    }

    private func edit(_ file: URL, replacing old: String, with new: String) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains(old), "\(file.lastPathComponent) no longer holds \(old)")
        try text.replacingOccurrences(of: old, with: new).write(to: file, atomically: true, encoding: .utf8)
    }
}
