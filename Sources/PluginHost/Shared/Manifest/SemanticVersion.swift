/// A version number as defined by Semantic Versioning 2.0.0: `MAJOR.MINOR.PATCH`, an
/// optional pre-release (`-beta.2`) and optional build metadata (`+sha.5114f85`).
struct SemanticVersion: Hashable, Comparable, CustomStringConvertible, Sendable {
    let major: Int
    let minor: Int
    let patch: Int
    let preRelease: [String]
    let build: [String]

    /// A release version: no pre-release, no build metadata.
    init(major: Int, minor: Int, patch: Int) {
        (self.major, self.minor, self.patch) = (major, minor, patch)
        preRelease = []
        build = []
    }

    /// Parses `text`, or returns `nil` when it is not a semantic version.
    init?(_ text: String) {
        // MAJOR.MINOR.PATCH, read byte by byte: every manifest has one.
        let utf8 = text.utf8
        var index = utf8.startIndex
        var core = [0, 0, 0]
        for part in core.indices {
            if part > 0 {
                guard index < utf8.endIndex, utf8[index] == UInt8(ascii: ".") else { return nil }
                index = utf8.index(after: index)
            }
            let start = index
            var value = 0
            while index < utf8.endIndex, case let digit = utf8[index], (0x30...0x39).contains(digit) {
                let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow, case let (sum, carry) = times10.addingReportingOverflow(Int(digit - 0x30)), !carry else { return nil }
                value = sum
                index = utf8.index(after: index)
            }
            let length = utf8.distance(from: start, to: index)
            guard length > 0, length == 1 || utf8[start] != UInt8(ascii: "0") else { return nil }
            core[part] = value
        }
        // Then nothing, or `-PRE.RELEASE`, then nothing or `+BUILD.METADATA`.
        var rest = Substring(text)[index...]
        var build: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            build = rest[rest.index(after: plus)...].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !build.isEmpty, build.allSatisfy({ Self.isIdentifier($0) }) else { return nil }
            rest = rest[..<plus]
        }
        var preRelease: [String] = []
        if !rest.isEmpty {
            guard rest.first == "-" else { return nil }
            preRelease = rest.dropFirst().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !preRelease.isEmpty,
                preRelease.allSatisfy({ Self.isIdentifier($0) && !Self.hasLeadingZero($0) })
            else { return nil }
        }
        (major, minor, patch) = (core[0], core[1], core[2])
        self.preRelease = preRelease
        self.build = build
    }

    var description: String {
        var text = "\(major).\(minor).\(patch)"
        if !preRelease.isEmpty { text += "-" + preRelease.joined(separator: ".") }
        if !build.isEmpty { text += "+" + build.joined(separator: ".") }
        return text
    }

    /// Precedence as the specification defines it; build metadata does not count.
    static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if (lhs.major, lhs.minor, lhs.patch) != (rhs.major, rhs.minor, rhs.patch) {
            return (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }
        switch (lhs.preRelease.isEmpty, rhs.preRelease.isEmpty) {
        case (true, _): return false
        case (false, true): return true
        case (false, false): break
        }
        for (left, right) in zip(lhs.preRelease, rhs.preRelease) where left != right {
            switch (Int(left), Int(right)) {
            case let (l?, r?): return l < r
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil): return left < right
            }
        }
        return lhs.preRelease.count < rhs.preRelease.count
    }

    private static func isIdentifier(_ part: some StringProtocol) -> Bool {
        !part.isEmpty && part.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
        }
    }

    private static func hasLeadingZero(_ part: some StringProtocol) -> Bool {
        part.count > 1 && part.first == "0" && part.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
}
