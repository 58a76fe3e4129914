import Testing

@testable import PluginHost

@Suite("SemanticVersion: versions as semver.org defines them")
struct SemanticVersionTests {
    @Test("accepts semantic versions", arguments: ["0.0.0", "1.2.3", "10.20.30", "1.0.0-alpha.1", "1.0.0-0.3.7", "1.0.0+build.5", "1.0.0-rc.1+sha.5114f85", "1.0.0-a-b", "1.0.0+a-b", "0.0.0-0", "9223372036854775807.0.0"])
    func valid(text: String) throws {
        #expect(try #require(SemanticVersion(text)).description == text)
    }

    @Test("refuses anything else", arguments: ["", "1", "1.0", "1.0.0.0", "01.0.0", "1.0.0-", "1.0.0-01", "1.0.0+", "v1.0.0", "1.0.0 ", "1..0", "-1.0.0", "1.0.0-a..b",
        "9223372036854775808.0.0", "1.0.0+a+b", "1.0.0-a+", "1.0.0x", "1.0.0\u{301}", "\u{661}.0.0", "1.0.0.-a", " 1.0.0"])
    func invalid(text: String) {
        #expect(SemanticVersion(text) == nil)
    }

    @Test("orders by precedence")
    func precedence() {
        let ordered = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "2.0.0"]
        let versions = ordered.map { SemanticVersion($0)! }
        #expect(versions.shuffled().sorted() == versions)
    }
}
