/// What a plugin's public API owes the build of it installed last: plugins built against
/// that build require `^VERSION` of it (what `plugin-host new` records), so a new build
/// within that range must keep its API as library evolution judges it; a new major version
/// (a new minor one before 1.0.0) may break it, and those plugins refuse it until rebuilt.
enum APICompatibility {
    /// Whether a build of version `building` must keep the API of the installed `installed`:
    /// the same version, or either within `^` of the other.
    static func mustKeep(installed: SemanticVersion, building: SemanticVersion) -> Bool {
        let (lower, upper) = installed < building ? (installed, building) : (building, installed)
        guard let range = try? VersionRange(VersionRange.compatible(with: lower)) else { return true }
        return range.admits(upper)
    }

    /// The changes in a report of `swift-api-digester -diagnose-sdk -abi` that break the
    /// API: every line but the section headers and the additions (which it reports as "a
    /// new API without '@available'", a matter for Apple's platforms only).
    static func breaks(inReport report: String) -> [String] {
        report.split(separator: "\n").map { $0.trimmingSpaces }.filter { line in
            !line.isEmpty && !line.hasPrefix("/*") && !line.contains("is a new API without '@available'")
        }
    }

    /// How many declarations the report says were added.
    static func additions(inReport report: String) -> Int {
        report.split(separator: "\n").filter { $0.contains("is a new API without '@available'") }.count
    }
}
