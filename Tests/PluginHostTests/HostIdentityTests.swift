import Testing

@testable import PluginHost

@Suite("A plugin-host binary says what it is in an ELF section, read without running it")
struct HostIdentityTests {
    private static let source = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")

    @Test("this binary's section holds HostIdentity.current, as ManifestSection writes it: the source is regenerated when the version changes")
    func theSectionIsTheCurrentIdentity() throws {
        #expect(HostIdentity.of(file: "/proc/self/exe") == .current)
        let file = "/" + Self.source + "/Sources/PluginHost/Shared/Manifest/HostIdentity+Section.swift"
        let text = try #require(try? String(decoding: ReadOnlyFile(path: file).read(count: 65_536, at: 0), as: UTF8.self))
        let expected = ManifestSection.declaration(embedding: HostIdentity.current.bytes, in: HostIdentity.sectionName, as: "pluginHostIdentity")
        #expect(text.hasSuffix("\n\n" + expected), "write this after the comment of \(file):\n\(expected)")
    }

    @Test("a file that says nothing, or says it is another program, is no plugin-host")
    func otherFiles() throws {
        #expect(HostIdentity.of(file: "/nonexistent/plugin-host") == nil)
        #expect(HostIdentity.of(file: "/proc/self/status") == nil)
        #expect(HostIdentity(program: "plugin-host", version: "1.2.3").bytes == Array(#"{"program":"plugin-host","version":"1.2.3"}"#.utf8))
        #expect(HostIdentity(program: "plugin-host", version: "1.2.3", supervision: 1).bytes
            == Array(#"{"program":"plugin-host","version":"1.2.3","supervision":1}"#.utf8))
    }
}
