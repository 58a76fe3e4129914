import Foundation
import Testing

/// The code the documentation quotes is code that is built and tested: a block after
/// `<!-- excerpt: PATH -->` must appear, line for line, in the file PATH.
@Suite("Documentation: quoted code is the code that is built and tested")
struct DocumentationTests {
    @Test("every excerpt in the README and docs/ appears verbatim in the file it names")
    func excerptsMatchTheirSources() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Repository.root.appending(path: "docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }
        var checked: [String] = []
        for document in ["README.md"] + docs.sorted() {
            for excerpt in try Excerpt.all(in: document) {
                let source = try String(contentsOf: Repository.root.appending(path: excerpt.source), encoding: .utf8)
                #expect(source.contains(excerpt.code), "\(document):\(excerpt.line): the excerpt differs from \(excerpt.source)")
                checked.append(excerpt.source)
            }
        }
        // The harness example is Domain's own test, which `make plugin-tests` builds and runs.
        #expect(checked.contains("Plugins/Domain/Tests/DomainTests.swift"), "\(checked)")
    }
}

/// A code block that the documentation says is taken from a source file.
struct Excerpt {
    static let marker = "<!-- excerpt: "

    /// The file it is taken from, relative to the repository.
    let source: String
    /// The code, lines joined with newlines.
    let code: String
    /// The line of the marker in the document.
    let line: Int

    /// The excerpts of `document`, a path relative to the repository.
    static func all(in document: String) throws -> [Excerpt] {
        let text = try String(contentsOf: Repository.root.appending(path: document), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var excerpts: [Excerpt] = []
        for (index, line) in lines.enumerated() where line.hasPrefix(marker) && line.hasSuffix(" -->") {
            let source = String(line.dropFirst(marker.count).dropLast(" -->".count))
            guard index + 1 < lines.count, lines[index + 1].hasPrefix("```"),
                  let end = lines[(index + 2)...].firstIndex(where: { $0.hasPrefix("```") })
            else {
                Issue.record("\(document):\(index + 1): an excerpt marker must be followed by a code block")
                continue
            }
            excerpts.append(Excerpt(source: source, code: lines[(index + 2)..<end].joined(separator: "\n"), line: index + 1))
        }
        return excerpts
    }
}
