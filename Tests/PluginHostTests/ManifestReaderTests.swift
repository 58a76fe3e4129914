import Foundation
import Testing

@testable import PluginHost

@Suite("ManifestReader: a plugin's manifest, read from its ELF file without loading it")
struct ManifestReaderTests {
    private func read(_ bytes: [UInt8]) throws(ManifestError) -> PluginManifest {
        try ManifestReader.manifest(in: MemorySource(bytes: bytes))
    }

    @Test("reads the manifest section of a shared object")
    func readsManifest() throws {
        let image = ELFBuilder.plugin(manifest: #"{"name":"Domain","version":"1.2.3","abi":1,"requires":["Persistence"]}"#)
        let manifest = try read(image.build())
        #expect(manifest.name == "Domain")
        #expect(manifest.version.description == "1.2.3")
        #expect(manifest.abi == 1)
        #expect(manifest.requires == ["Persistence"])
    }

    @Test("a plugin bootstraps after its build before has stopped, unless its manifest says it may beside")
    func upgradeOrder() throws {
        let after = try read(ELFBuilder.plugin(manifest: #"{"name":"A","version":"1.0.0","abi":2}"#).build())
        let beside = try read(ELFBuilder.plugin(manifest: #"{"name":"A","version":"1.0.0","abi":2,"upgrade":"beside"}"#).build())
        #expect(after.upgrade == .after)
        #expect(beside.upgrade == .beside)
    }

    /// What reading `bytes` from a file gives: the manifest's name, or the error's text.
    private func readFromFile(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("elf-\(UUID().uuidString).so")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try ReadOnlyFile(path: url.path)
        do {
            return try ManifestReader.plugin(in: file, size: UInt64(bytes.count)).manifest.name
        } catch {
            return "\(error)"
        }
    }

    @Test("a file reads like its bytes in memory, wherever its sections lie and however it is cut")
    func fileMatchesMemory() throws {
        let manifest = #"{"name":"Far","version":"1.0.0","abi":1}"#
        let padding = [UInt8](repeating: 0xCC, count: 100_000)
        let images = [
            ELFBuilder.plugin(manifest: manifest).build(),
            // The manifest 100 KB before the section table, and the table past 64 KiB.
            ELFBuilder(sections: [(".plugin_host_manifest", Array(manifest.utf8)), (".pad", padding)]).build(),
            // Section names longer than the room read before the table.
            ELFBuilder(sections: (0..<60).map { (".section-with-a-long-name-\($0)-" + String(repeating: "x", count: 40), [1]) }
                + [(".plugin_host_manifest", Array(manifest.utf8))]).build(),
        ]
        for image in images {
            var expected: String
            do { expected = try read(image).name } catch { expected = "\(error)" }
            #expect(expected == "Far")
            #expect(try readFromFile(image) == expected)
            for length in [4, 63, 64, 100, 1_024, image.count / 2, image.count - 64, image.count - 1] where length < image.count {
                let cut = Array(image[..<length])
                var wanted: String
                do { wanted = try read(cut).name } catch { wanted = "\(error)" }
                #expect(try readFromFile(cut) == wanted, "cut at \(length) of \(image.count)")
            }
        }
    }

    @Test("an empty file, or one that is not ELF, is not a shared object")
    func notELF() {
        #expect(throws: ManifestError.notSharedObject(.empty)) { try read([]) }
        #expect(throws: ManifestError.notSharedObject(.notELF)) { try read(Array("hello, this is text".utf8)) }
    }

    @Test("a truncated file is reported as truncated at every length")
    func truncated() {
        let whole = ELFBuilder.plugin(manifest: #"{"name":"A","version":"1.0.0","abi":1}"#).build()
        for length in stride(from: 4, to: whole.count, by: 7) {
            #expect(throws: ManifestError.self) { try read(Array(whole[..<length])) }
        }
    }

    @Test("32-bit, big-endian, non-shared and foreign-machine files are refused with the reason")
    func wrongKinds() {
        var image = ELFBuilder.plugin(manifest: "{}")
        image.fileClass = 1
        #expect(throws: ManifestError.notSharedObject(.wrongClass)) { try read(image.build()) }
        image = ELFBuilder.plugin(manifest: "{}")
        image.byteOrder = 2
        #expect(throws: ManifestError.notSharedObject(.wrongByteOrder)) { try read(image.build()) }
        image = ELFBuilder.plugin(manifest: "{}")
        image.type = 2
        #expect(throws: ManifestError.notSharedObject(.notSharedObject(type: 2))) { try read(image.build()) }
        image = ELFBuilder.plugin(manifest: "{}")
        image.machine = 183
        #expect(throws: ManifestError.notSharedObject(.wrongMachine(183))) { try read(image.build()) }
    }

    @Test("a shared object without a manifest section has a missing manifest")
    func missingSection() {
        #expect(throws: ManifestError.missing) { try read(ELFBuilder(sections: [(".text", [1, 2, 3])]).build()) }
    }

    @Test("a manifest larger than 64 KiB is refused")
    func oversized() throws {
        let huge = #"{"name":"A","version":"1.0.0","abi":1,"pad":""# + String(repeating: "x", count: 70_000) + #""}"#
        let error = try #require(throws: ManifestError.self) { try read(ELFBuilder.plugin(manifest: huge).build()) }
        #expect(error.description.contains("more than the 65536 allowed"))
    }

    @Test("malformed manifests say which field is wrong", arguments: [
        ("not json", "not valid JSON: line 1, column 1"),
        ("[1]", "must be a JSON object, found array"),
        (#"{"version":"1.0.0","abi":1}"#, #""name" must be a string, but it is missing"#),
        (#"{"name":"a/b","version":"1.0.0","abi":1}"#, "may hold only ASCII letters"),
        (#"{"name":"A","version":"1.0","abi":1}"#, "is not a semantic version"),
        (#"{"name":"A","version":"1.0.0","abi":"1"}"#, #""abi" must be a whole number of at least 1, found string"#),
        (#"{"name":"A","version":"1.0.0","abi":1,"requires":"B"}"#, "must be an array of plugin names"),
        (#"{"name":"A","version":"1.0.0","abi":1,"requires":["A"]}"#, "plugin A requires itself"),
        (#"{"name":"A","version":"1.0.0","abi":1,"requires":["B","B"]}"#, "lists B twice"),
        (#"{"name":"A","version":"1.0.0","abi":1,"optional":["A"]}"#, "plugin A requires itself"),
        (#"{"name":"A","version":"1.0.0","abi":1,"requires":["B"],"optional":["B"]}"#, #"B is listed in both "requires" and "optional""#),
        (#"{"name":"A\u0000","version":"1.0.0","abi":1}"#, #""A\u{0}" may hold only ASCII letters"#),
        (#"{"name":"../evil","version":"1.0.0","abi":1}"#, "may hold only ASCII letters"),
        (#"{"name":"A","version":"1.0.0","abi":1,"upgrade":"sideways"}"#, #""upgrade" must be "after" or "beside", found "sideways""#),
        (#"{"name":"A","version":"1.0.0","abi":1,"upgrade":true}"#, #""upgrade" must be "after" or "beside", found boolean"#),
    ])
    func malformed(json: String, expected: String) throws {
        let error = try #require(throws: ManifestError.self) { try read(ELFBuilder.plugin(manifest: json).build()) }
        guard case .malformed = error else {
            Issue.record("expected a malformed manifest, got \(error)")
            return
        }
        #expect(error.description.contains(expected), "\(error)")
    }

    @Test("optional dependencies are read apart from required ones")
    func optional() throws {
        let manifest = try read(ELFBuilder.plugin(manifest: #"{"name":"App","version":"1.0.0","abi":1,"requires":["Domain"],"optional":["Metrics"]}"#).build())
        #expect(manifest.requires == ["Domain"])
        #expect(manifest.optional == ["Metrics"])
        #expect(manifest.identity.dependencies == ["Domain", "Metrics"])
    }

    @Test("a manifest that is not valid UTF-8 is malformed")
    func invalidUTF8() throws {
        var image = ELFBuilder.plugin(manifest: "")
        image.sections[1].contents = Array(#"{"name":""#.utf8) + [0xFF, 0xFE] + Array(#"","version":"1.0.0","abi":1}"#.utf8)
        let error = try #require(throws: ManifestError.self) { try read(image.build()) }
        #expect(error.description.contains("not valid UTF-8"))
    }
}
