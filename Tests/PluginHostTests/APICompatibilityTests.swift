import Testing

@testable import PluginHost

@Suite("APICompatibility: what a new build of a plugin owes the one installed")
struct APICompatibilityTests {
    private func version(_ text: String) -> SemanticVersion { SemanticVersion(text)! }

    @Test("within ^installed (either way round, the same version too) the API must be kept; a new major version may break it",
          arguments: [
            ("1.2.0", "1.2.0", true), ("1.2.0", "1.3.0", true), ("1.3.0", "1.2.5", true), ("1.2.0", "2.0.0", false),
            ("2.0.0", "1.9.0", false), ("0.3.1", "0.3.9", true), ("0.3.1", "0.4.0", false), ("1.0.0", "1.1.0-beta.1", true),
          ])
    func mustKeep(installed: String, building: String, keeps: Bool) {
        #expect(APICompatibility.mustKeep(installed: version(installed), building: version(building)) == keeps)
    }

    @Test("a digester report: each line of a change breaks, but section headers and additions")
    func breaks() {
        let report = """
            /* Generic Signature Changes */

            /* RawRepresentable Changes */

            /* Removed Decls */
            Func Stocking.restock(_:count:) has been removed
            /* Type Changes */
            Func Stocking.stock(of:) has return type change from Swift.Int to Swift.Int8
            Func pantryOpens() is a new API without '@available'
            Func pantryCloses() is a new API without '@available'

            """
        #expect(APICompatibility.breaks(inReport: report) == [
            "Func Stocking.restock(_:count:) has been removed",
            "Func Stocking.stock(of:) has return type change from Swift.Int to Swift.Int8",
        ])
        #expect(APICompatibility.additions(inReport: report) == 2)
        #expect(APICompatibility.breaks(inReport: "/* Removed Decls */\n\n").isEmpty)
    }
}
