import Testing

@testable import PluginHost

@Suite("ManifestCache: the file format")
struct ManifestCacheFormatTests {
    private func entry(_ stored: String, needed: [String], segments: ELFImage.Segments?) throws -> ManifestCache.Entry {
        let status = try FileStatus(path: "/")
        return ManifestCache.Entry(status, stored: Array(stored.utf8), needed: needed, segments: segments)
    }

    @Test("entries survive a round trip: names with spaces and newlines, no libraries, no segments, segments without code")
    func roundTrip() throws {
        let entries: [String: ManifestCache.Entry] = [
            "libA.so": try entry(#"{"name": "A"}"#, needed: ["libswiftCore.so", "libPluginABI.so"], segments: .init(whole: 0..<4096, code: 4096..<8192)),
            "lib odd\nname.so": try entry("{\n}", needed: [], segments: nil),
            "libC.so": try entry("", needed: ["libc.so.6"], segments: .init(whole: 16..<32, code: nil)),
        ]
        #expect(ManifestCache.decode(ManifestCache.encode(entries)) == entries)
        #expect(ManifestCache.decode(ManifestCache.encode([:])) == [:])
    }

    @Test("a damaged file decodes to nothing, whatever was cut or changed")
    func damaged() throws {
        let bytes = ManifestCache.encode(["libA.so": try entry(#"{"name": "A"}"#, needed: ["libc.so.6"], segments: nil)])
        for count in 1..<bytes.count where count != ManifestCache.format.utf8.count {
            #expect(ManifestCache.decode(Array(bytes.prefix(count))) == nil, "cut at \(count)")
        }
        #expect(ManifestCache.decode(Array("plugin-host manifest cache 2\n".utf8)) == nil)
        #expect(ManifestCache.decode(Array(bytes.map { $0 == UInt8(ascii: " ") ? UInt8(ascii: "x") : $0 })) == nil)
    }
}
