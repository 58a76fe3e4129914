import Testing

@testable import PluginHost

@Suite("Version ranges: the versions of a required plugin that a plugin works with")
struct VersionRangeTests {
    private func version(_ text: String) -> SemanticVersion { SemanticVersion(text)! }

    @Test("comparisons that must all hold; ^ as SwiftPM's from:")
    func admits() throws {
        let range = try VersionRange(">=1.2.0 <2.0.0")
        #expect(range.admits(version("1.2.0")) && range.admits(version("1.9.9")))
        #expect(!range.admits(version("1.1.9")) && !range.admits(version("2.0.0")))
        #expect(!range.admits(version("2.0.0-beta.1")), "a pre-release of 2.0.0 is a build of 2.0.0")
        #expect(range.admits(version("1.3.0-beta.1")))
        let caret = try VersionRange("^1.2.0")
        #expect(caret.admits(version("1.4.0")) && !caret.admits(version("2.0.0")) && !caret.admits(version("1.1.0")))
        let zero = try VersionRange("^0.3.1")
        #expect(zero.admits(version("0.3.9")) && !zero.admits(version("0.4.0")))
        #expect(try VersionRange("=1.4.2").admits(version("1.4.2")))
        #expect(try VersionRange("1.4.2").admits(version("1.4.2")) && !(try VersionRange("1.4.2").admits(version("1.4.3"))))
        #expect(try VersionRange(">1.0.0").admits(version("1.0.1")) && !(try VersionRange(">1.0.0").admits(version("1.0.0"))))
        #expect(try VersionRange("<=1.9.0").admits(version("1.9.0")))
        #expect(VersionRange.compatible(with: version("1.2.3-beta")) == "^1.2.3")
        #expect(try VersionRange("  >=1.0.0   <2.0.0 ").description == ">=1.0.0 <2.0.0")
    }

    @Test("what is no range is refused, saying how to write one")
    func refused() {
        #expect(throws: ManifestError.malformed("an empty version range; give one such as \">=1.2.0 <2.0.0\" or \"^1.2.0\"")) {
            try VersionRange(" ")
        }
        #expect(throws: ManifestError.malformed(
            "\"~>1.2\" in the version range \"~>1.2\" is not a comparison with a semantic version; write ranges such as \">=1.2.0 <2.0.0\" or \"^1.2.0\""
        )) {
            try VersionRange("~>1.2")
        }
        #expect(throws: ManifestError.self) { try VersionRange(">=1.2") }
    }

    @Test("a manifest gives ranges for required plugins only, as strings")
    func inManifests() throws {
        let manifest = try PluginManifest(json: Array(
            #"{"name": "App", "version": "1.0.0", "abi": 2, "requires": ["Domain"], "requiredVersions": {"Domain": "^1.2.0"}}"#.utf8))
        #expect(manifest.requiredVersions["Domain"]?.description == "^1.2.0")
        #expect(throws: ManifestError.malformed(
            "\"requiredVersions\" gives a range for Metrics, which is not in \"requires\"; a range applies to a required plugin"
        )) {
            try PluginManifest(json: Array(
                #"{"name": "App", "version": "1.0.0", "abi": 2, "optional": ["Metrics"], "requiredVersions": {"Metrics": "^1.0.0"}}"#.utf8))
        }
        #expect(throws: ManifestError.self) {
            try PluginManifest(json: Array(#"{"name": "App", "version": "1.0.0", "abi": 2, "requires": ["D"], "requiredVersions": {"D": 1}}"#.utf8))
        }
        #expect(throws: ManifestError.self) {
            try PluginManifest(json: Array(#"{"name": "App", "version": "1.0.0", "abi": 2, "requires": ["D"], "requiredVersions": ["D"]}"#.utf8))
        }
    }

    @Test("the resolver refuses a plugin whose required plugin is outside its range, naming both versions and the range")
    func resolution() throws {
        func plugin(_ name: String, _ version: String, requires: [String] = [], ranges: [String: String] = [:]) throws -> PluginCandidate {
            PluginCandidate(
                file: "plugins/lib\(name).so",
                manifest: PluginManifest(
                    name: name, version: SemanticVersion(version)!, abi: 2, requires: requires,
                    requiredVersions: try ranges.mapValues { text throws(ManifestError) in try VersionRange(text) }),
                needed: [])
        }
        let resolver = DependencyResolver(abiVersion: 2)
        let holds = resolver.resolve([try plugin("Domain", "1.4.0"), try plugin("App", "1.0.0", requires: ["Domain"], ranges: ["Domain": "^1.2.0"])])
        #expect(holds.problems.isEmpty)

        let broken = resolver.resolve([
            try plugin("Domain", "2.0.0"), try plugin("App", "1.0.0", requires: ["Domain"], ranges: ["Domain": "^1.2.0"]),
            try plugin("Any", "1.0.0", requires: ["Domain"]),
        ])
        #expect(broken.problems.map(\.code) == [.versionMismatch])
        #expect(broken.failures.keys.sorted() == ["App"], "a plain name works with any version")
        #expect(broken.problems.first?.message == "plugin App (plugins/libApp.so) requires Domain ^1.2.0, but Domain 2.0.0 is installed "
            + "(plugins/libDomain.so); install a build of Domain within ^1.2.0, or rebuild App against Domain 2.0.0")
    }
}
