import Testing

@testable import PluginHost

@Suite("ManifestSection: a manifest as a Swift constant in the manifest section")
struct ManifestSectionTests {
    /// The bytes the words of `source` hold, in the machine's (little-endian) order.
    private func embeddedBytes(_ source: String) -> [UInt8] {
        let words = source.split(whereSeparator: { ", \n()".contains($0) }).filter { $0.hasPrefix("0x") }
        return words.flatMap { word -> [UInt8] in
            let value = UInt64(word.dropFirst(2), radix: 16)!
            return (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
    }

    @Test("the section holds the manifest as written, then spaces up to a whole word, which the host's reader accepts",
          arguments: [0, 1, 7])
    func holdsTheManifest(extraSpaces: Int) throws {
        let json = Array((#"{"name": "Peel", "version": "1.2.3", "abi": 2, "requires": ["Domain"]}"# + String(repeating: " ", count: extraSpaces)).utf8)
        let source = ManifestSection.swiftSource(embedding: json, from: "/src/Peel/manifest.json")
        let bytes = embeddedBytes(source)
        #expect(bytes.count % 8 == 0 && bytes.count - json.count < 8)
        #expect(Array(bytes.prefix(json.count)) == json)
        #expect(bytes.dropFirst(json.count).allSatisfy { $0 == UInt8(ascii: " ") })
        let manifest = try PluginManifest(json: bytes)
        #expect(manifest.name == "Peel" && manifest.requires == ["Domain"])
    }

    @Test("the constant is placed in the section the host reads, kept by the linker, and says where it came from")
    func declaration() {
        let source = ManifestSection.swiftSource(embedding: Array(#"{"name": "P"}"#.utf8), from: "/src/P/manifest.json\nrm -rf /")
        #expect(source.contains(#"@section(".plugin_host_manifest") @used"#))
        #expect(source.contains("let pluginHostManifest: (UInt64, UInt64) = ("))
        #expect(source.contains("from /src/P/manifest.json rm -rf /: edit that file"), "a line break in a path stays in the comment")
    }
}
