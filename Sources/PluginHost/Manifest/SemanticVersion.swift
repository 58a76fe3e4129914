/// A version number as defined by Semantic Versioning 2.0.0: `MAJOR.MINOR.PATCH`, an
/// optional pre-release (`-beta.2`) and optional build metadata (`+sha.5114f85`).
struct SemanticVersion: Hashable, Comparable, CustomStringConvertible, Sendable {
    let major: Int
    let minor: Int
    let patch: Int
    let preRelease: [String]
    let build: [String]

    /// Parses `text`, or returns `nil` when it is not a semantic version.
    init?(_ text: String) {
        var rest = Substring(text)
        var build: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            build = rest[rest.index(after: plus)...].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !build.isEmpty, build.allSatisfy({ Self.isIdentifier($0) }) else { return nil }
            rest = rest[..<plus]
        }
        var preRelease: [String] = []
        if let dash = rest.firstIndex(of: "-") {
            preRelease = rest[rest.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !preRelease.isEmpty,
                preRelease.allSatisfy({ Self.isIdentifier($0) && !Self.hasLeadingZero($0) })
            else { return nil }
            rest = rest[..<dash]
        }
        let core = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard core.count == 3 else { return nil }
        var numbers: [Int] = []
        for part in core {
            guard !part.isEmpty, part.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                !Self.hasLeadingZero(part), let number = Int(part)
            else { return nil }
            numbers.append(number)
        }
        (major, minor, patch) = (numbers[0], numbers[1], numbers[2])
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
