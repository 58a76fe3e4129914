import Foundation
import Testing

/// The layering docs/architecture.md describes, checked against the sources.
@Suite("Architecture: the folders depend one way, and only System calls C")
struct ArchitectureTests {
    /// The folders of Sources/PluginHost, each allowed to use only the ones before it.
    static let layers = [
        "System", "Shared", "JSON", "Configuration", "Manifest", "Discovery", "Ordering", "Loading", "Supervision",
        "Containment", "Chain", "Lifecycle", "Report", "Inspection", "Authoring", "CLI",
    ]

    private static let sources = Repository.root.appending(path: "Sources/PluginHost")

    /// Every Swift file, by folder.
    private static func files() throws -> [String: [URL]] {
        var files: [String: [URL]] = [:]
        for folder in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let directory = sources.appending(path: folder)
            files[folder] = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".swift") }.map { directory.appending(path: $0) }
        }
        return files
    }

    /// The text of a file without its comments and string literals' contents.
    private static func code(of file: URL) throws -> String {
        try String(contentsOf: file, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n")
    }

    @Test("the folders are exactly those docs/architecture.md lists")
    func foldersAreDocumented() throws {
        #expect(Set(try Self.files().keys) == Set(Self.layers))
        let document = try String(contentsOf: Repository.root.appending(path: "docs/architecture.md"), encoding: .utf8)
        #expect(document.replacingOccurrences(of: "\n> ", with: " ").contains(Self.layers.joined(separator: ", ")))
    }

    @Test("each folder uses only the folders before it in the list")
    func dependenciesRunOneWay() throws {
        let files = try Self.files()
        // The types, functions and globals each folder declares at the top level.
        let declaration = try NSRegularExpression(
            pattern: #"^(?:(?:private|fileprivate|internal|package|public|final|indirect)\s+)*(?:struct|enum|class|protocol|actor|typealias|func|let|var)\s+([A-Za-z_]\w*)"#,
            options: .anchorsMatchLines)
        var owner: [String: String] = [:]
        for (folder, urls) in files {
            for url in urls {
                let text = try Self.code(of: url)
                for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    owner[String(text[Range(match.range(at: 1), in: text)!])] = folder
                }
            }
        }
        let word = try NSRegularExpression(pattern: #"\b[A-Za-z_]\w*\b"#)
        var violations: [String] = []
        for (folder, urls) in files {
            let rank = try #require(Self.layers.firstIndex(of: folder), "\(folder) is not in the list")
            for url in urls {
                let text = try Self.code(of: url)
                var used = Set<String>()
                for match in word.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    used.insert(String(text[Range(match.range, in: text)!]))
                }
                for name in used.sorted() {
                    guard let other = owner[name], other != folder, let otherRank = Self.layers.firstIndex(of: other) else { continue }
                    if otherRank > rank { violations.append("\(folder)/\(url.lastPathComponent) uses \(name) of \(other)") }
                }
            }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }

    @Test("only System imports Glibc or handles unsafe pointers")
    func onlySystemCallsC() throws {
        var violations: [String] = []
        for (folder, urls) in try Self.files() where folder != "System" {
            for url in urls {
                let text = try Self.code(of: url)
                for forbidden in ["import Glibc", "import Musl", "import Foundation", "Unsafe", "unsafeBitCast", "OpaquePointer"]
                where text.contains(forbidden) {
                    // The plugin template writes a plugin's entry point, as text.
                    if forbidden == "Unsafe" && url.lastPathComponent == "PluginTemplate.swift" { continue }
                    violations.append("\(folder)/\(url.lastPathComponent): \(forbidden)")
                }
            }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }
}
