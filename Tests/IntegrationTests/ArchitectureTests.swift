import Foundation
import Testing

/// The layering docs/architecture.md describes, checked against the sources.
@Suite("Architecture: the folders show the processes, depend one way, and only System calls C")
struct ArchitectureTests {
    /// The folders of Sources/PluginHost, by the process they serve (`Shared/`: what every
    /// process uses; `Worker/`: the worker, the only process that runs plugin code;
    /// `Supervisor/`: the supervising parent; `Commands/`: what an operator or an author runs),
    /// each allowed to use only the ones before it in the list.
    static let layers = [
        "Shared/System", "Shared/Basics", "Shared/JSON", "Shared/Configuration", "Shared/Manifest", "Shared/Discovery", "Shared/Ordering",
        "Shared/Link",
        "Worker/Loading", "Worker/Containment", "Worker/Chain", "Worker/Lifecycle", "Worker/Report", "Worker/Main",
        "Supervisor/Machine", "Supervisor/Messages", "Supervisor/Control", "Supervisor/Driver",
        "Commands/Asking", "Commands/Inspection", "Commands/Authoring", "Commands/CLI",
    ]

    /// Which processes' folders each may use besides its own: the worker and the supervisor
    /// share only what `Shared/` holds (the protocol between them is `Shared/Link`), so that
    /// the supervisor never runs, nor links against, what runs plugin code; the commands may
    /// use anything.
    static let processes: [String: Set<String>] = [
        "Shared": [], "Worker": ["Shared"], "Supervisor": ["Shared"], "Commands": ["Shared", "Worker", "Supervisor"],
    ]

    private static let sources = Repository.root.appending(path: "Sources/PluginHost")

    /// Every Swift file, by its folder (`Supervisor/Machine`): the two levels under
    /// Sources/PluginHost it is in, however deep.
    static func files() throws -> [String: [URL]] {
        var files: [String: [URL]] = [:]
        for process in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            for folder in try FileManager.default.contentsOfDirectory(atPath: sources.appending(path: process).path) {
                let directory = sources.appending(path: process).appending(path: folder)
                files[process + "/" + folder] = (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? [])
                    .filter { $0.hasSuffix(".swift") }.map { directory.appending(path: $0) }
            }
        }
        return files
    }

    /// The text of a file without its comments and the contents of its string literals (a
    /// `//` in a string starts no comment); line breaks are kept.
    static func code(of file: URL) throws -> String {
        SwiftText.code(try String(contentsOf: file, encoding: .utf8))
    }

    /// A top-level declaration, with any attributes and modifiers before it: its name.
    static let declaration = try! NSRegularExpression(
        pattern: #"^(?:@\w+(?:\([^)\n]*\))?\s+)*(?:(?:private|fileprivate|internal|package|public|open|final|indirect|static|nonisolated(?:\(unsafe\))?)\s+)*(?:struct|enum|class|protocol|actor|typealias|func|let|var)\s+([A-Za-z_]\w*)"#,
        options: .anchorsMatchLines)

    @Test("the checks read what they must: declarations with attributes, code after a string holding //, files in nested folders")
    func checksSeeEverything() throws {
        let text = """
            @MainActor final class Watcher {}
            nonisolated(unsafe) private var counter = 0
            let address = "http://example.com"; let after = Watcher()
            /* a block comment, "with a string" */ let visible = 1
            let quoted = #"a "raw" string with // in it"#; let next = 2
            """
        let names = Self.declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        }
        #expect(names == ["Watcher", "counter", "address", "quoted"])
        let code = SwiftText.code(text)
        #expect(code.contains("Watcher()") && code.contains("let visible") && code.contains("let next"))
        #expect(!code.contains("example.com") && !code.contains("block comment"))
        // A nested folder's file counts for its top folder.
        let nested = try Scratch.directory(named: "nested")
        try FileManager.default.createDirectory(at: nested.appending(path: "Top/Inner"), withIntermediateDirectories: true)
        try Data("let x = 1".utf8).write(to: nested.appending(path: "Top/Inner/Deep.swift"))
        let found = FileManager.default.enumerator(atPath: nested.appending(path: "Top").path)?.allObjects as? [String] ?? []
        #expect(found.contains("Inner/Deep.swift"))
    }

    @Test("the folders are exactly those docs/architecture.md lists")
    func foldersAreDocumented() throws {
        #expect(Set(try Self.files().keys) == Set(Self.layers))
        let document = try String(contentsOf: Repository.root.appending(path: "docs/architecture.md"), encoding: .utf8)
        #expect(document.replacingOccurrences(of: "\n> ", with: " ").contains(Self.layers.joined(separator: ", ")))
    }

    @Test("the worker and the supervisor share only Shared; the commands may use any process's folders")
    func processesStayApart() throws {
        #expect(Set(Self.layers.map { String($0.prefix { $0 != "/" }) }) == Set(Self.processes.keys))
        let files = try Self.files()
        var owner: [String: String] = [:]
        for (folder, urls) in files {
            for name in try Self.declaredNames(in: urls) { owner[name] = folder }
        }
        let word = try NSRegularExpression(pattern: #"\b[A-Za-z_]\w*\b"#)
        var violations: [String] = []
        for (folder, urls) in files {
            let process = String(folder.prefix { $0 != "/" })
            let allowed = (Self.processes[process] ?? []).union([process])
            for url in urls {
                let text = try Self.code(of: url)
                let used = Set(word.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range, in: text)!]) })
                for name in used.sorted() {
                    guard let other = owner[name] else { continue }
                    let otherProcess = String(other.prefix { $0 != "/" })
                    if !allowed.contains(otherProcess) { violations.append("\(folder)/\(url.lastPathComponent) uses \(name) of \(other)") }
                }
            }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }

    @Test("each folder uses only the folders before it in the list")
    func dependenciesRunOneWay() throws {
        let files = try Self.files()
        // The types, functions and globals each folder declares at the top level.
        let declaration = Self.declaration
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

    /// The folder of the supervisor's state machine: only pure code lives there. The names of
    /// System it may use are values, never a call that reads the clock, touches a file or a
    /// process.
    static let machineFolder = "Supervisor/Machine"
    static let pureSystemNames: Set<String> = ["MonotonicInstant", "Signal", "ProcessID", "FileIdentity", "Termination", "nanoseconds"]

    /// The names declared at the top level of `urls`.
    static func declaredNames(in urls: [URL]) throws -> Set<String> {
        var names = Set<String>()
        for url in urls {
            let text = try code(of: url)
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        return names
    }

    @Test("the supervisor's state machine is pure: every file of its folder makes no system call, reads no clock, uses nothing of its driver, and has every switch exhaustive")
    func machineIsPure() throws {
        let files = try Self.files()
        let machine = files[Self.machineFolder] ?? []
        let driver = ["Supervisor/Driver", "Worker/Main", "Supervisor/Control", "Commands/Asking"].flatMap { files[$0] ?? [] }
        #expect(machine.count >= 10, "the machine's folder holds its parts: \(machine.map(\.lastPathComponent))")
        let systemNames = try Self.declaredNames(in: files["Shared/System"] ?? [])
        let driverNames = try Self.declaredNames(in: driver)
        let word = try NSRegularExpression(pattern: #"\b[A-Za-z_]\w*\b"#)
        var violations: [String] = []
        for url in machine {
            let name = url.lastPathComponent
            let text = try Self.code(of: url)
            let used = Set(word.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range, in: text)!]) })
            for system in used.intersection(systemNames).subtracting(Self.pureSystemNames).sorted() {
                violations.append("\(name) uses \(system) of System")
            }
            for driven in used.intersection(driverNames).sorted() {
                violations.append("\(name) uses \(driven) of the driver (Supervisor/Driver, outside Machine)")
            }
            if text.contains("default:") { violations.append("\(name) has a switch with default") }
            if text.contains("MonotonicInstant.now") || text.contains(": .now") || text.contains("(.now") {
                violations.append("\(name) reads the clock")
            }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }

    @Test("the machine decides in values, not words: no file of Machine holds a string literal of words (refusals, reasons, summaries, states, roles and causes are values, said in Messages)")
    func machineSaysNoSentences() throws {
        let literal = try NSRegularExpression(pattern: #""[^"\n]*[a-z]+ [a-z]+[^"\n]*""#)
        var violations: [String] = []
        for url in try Self.files()[Self.machineFolder] ?? [] {
            // Comment lines hold words by design; the code's literals are what is counted.
            let text = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            for match in literal.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                violations.append("\(url.lastPathComponent): \(text[Range(match.range, in: text)!]): say it in Messages")
            }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }

    @Test("the machine's parts keep their state: no stored variable of a part the machine holds can be set from outside it, so the machine asks a part, and never assigns into it")
    func machinePartsKeepTheirState() throws {
        let machineFiles = try Self.files()[Self.machineFolder] ?? []
        let texts = try machineFiles.map { ($0.lastPathComponent, try Self.code(of: $0)) }
        let top = try #require(texts.first { $0.0 == "SupervisionMachine.swift" }?.1)
        // The parts: the types of the machine's stored variables, as declared or initialized.
        let stored = try NSRegularExpression(pattern: #"^    (?:private(?:\(set\))? )?var \w+(?:: ([A-Z]\w+)\s*$| = ([A-Z]\w+)\()"#, options: .anchorsMatchLines)
        // The parts: the structs of Machine the machine keeps in its stored variables (its
        // state is an enum of its own, and the time a value).
        let parts = Set(stored.matches(in: top, range: NSRange(top.startIndex..., in: top)).compactMap { match in
            (1...2).lazy.compactMap { Range(match.range(at: $0), in: top).map { String(top[$0]) } }.first
        }).filter { part in texts.contains { $0.1.contains("struct \(part):") } }
        #expect(parts.isSuperset(of: ["BuildLedger", "OperatorRequests", "HandOffs", "Restarts"]), "the machine's parts are found: \(parts.sorted())")
        let settable = try NSRegularExpression(pattern: #"^    var (\w+)[^{]*$"#, options: .anchorsMatchLines)
        var violations: [String] = []
        for part in parts.sorted() {
            guard let (file, text) = texts.first(where: { $0.1.contains("struct \(part):") }),
                let start = text.range(of: "struct \(part):"), let end = text[start.upperBound...].range(of: "\n}")
            else { continue }
            let body = String(text[start.upperBound..<end.lowerBound])
            for match in settable.matches(in: body, range: NSRange(body.startIndex..., in: body)) {
                violations.append("\(file): \(part).\(body[Range(match.range(at: 1), in: body)!]) can be set by the machine: keep it private, and say what happened by a method")
            }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }

    @Test("the simulated world judges by rules of its own: it uses none of the machine's parts or judgements, so a bug in one cannot move the oracle with it")
    func worldSharesNoJudgementWithTheMachine() throws {
        let files = try Self.files()
        let machineDirectory = Self.sources.appending(path: Self.machineFolder).path + "/"
        let machine = files[Self.machineFolder] ?? []
        let others = files.values.joined().filter { !$0.path.hasPrefix(machineDirectory) }
        let simulationDirectory = Repository.root.appending(path: "Tests/PluginHostTests/Simulation")
        let simulation = try FileManager.default.contentsOfDirectory(atPath: simulationDirectory.path)
            .filter { $0.hasSuffix(".swift") }.map { simulationDirectory.appending(path: $0) }
        let function = try NSRegularExpression(pattern: #"\bfunc\s+([A-Za-z_]\w*)"#)
        let enumCase = try NSRegularExpression(pattern: #"\bcase\s+([A-Za-z_]\w*)"#)
        func names(_ pattern: NSRegularExpression, in urls: [URL]) throws -> Set<String> {
            var found: Set<String> = []
            for url in urls {
                let text = try Self.code(of: url)
                for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    found.insert(String(text[Range(match.range(at: 1), in: text)!]))
                }
            }
            return found
        }
        // The machine's own functions: declared by it alone, no case of an enum, and not a
        // function of the world's by the same name. The machine's interface (starting, handle)
        // is what the world drives it through.
        let judgements = try names(function, in: machine)
            .subtracting(names(function, in: others)).subtracting(names(enumCase, in: machine + others))
            .subtracting(names(function, in: simulation)).subtracting(["starting", "handle"])
        #expect(judgements.count >= 40, "the machine's functions are found: \(judgements.sorted())")
        // Its parts that decide, and the rules it shares with the rest of the host.
        let parts: Set<String> = [
            "BuildLedger", "HostRecords", "OperatorRequests", "Restarts", "RestartHistory", "WorkerEnding", "Stopping", "Dependents", "isShortCall", "HandOffs",
            "UpgradesUnderWay",
            "beforeRestartInARow",
        ]
        let word = try NSRegularExpression(pattern: #"\b[A-Za-z_]\w*\b"#)
        let call = try NSRegularExpression(pattern: #"\b([A-Za-z_]\w*)\s*\("#)
        var violations: [String] = []
        for url in simulation {
            let text = try Self.code(of: url)
            let words = Set(word.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range, in: text)!]) })
            let calls = Set(call.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range(at: 1), in: text)!]) })
            for name in words.intersection(parts).union(calls.intersection(judgements)).sorted() {
                violations.append("\(url.lastPathComponent) uses \(name), which the machine decides with: the world must judge by WorldRules")
            }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }

    @Test("only Shared/System imports Glibc or handles unsafe pointers")
    func onlySystemCallsC() throws {
        var violations: [String] = []
        for (folder, urls) in try Self.files() where folder != "Shared/System" {
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

/// Swift source as the architecture checks read it.
enum SwiftText {
    /// `text` without comments (`//`, nested `/* */`) and with the contents of string
    /// literals (`"..."`, `"""..."""`, raw `#"..."#`) blanked; line breaks are kept, so
    /// that a line still starts where it did.
    static func code(_ text: String) -> String {
        let characters = Array(text)
        var result: [Character] = []
        var index = 0
        var commentDepth = 0
        func at(_ offset: Int) -> Character? { index + offset < characters.count ? characters[index + offset] : nil }
        while index < characters.count {
            let character = characters[index]
            if commentDepth > 0 {
                if character == "*", at(1) == "/" { commentDepth -= 1; index += 2; continue }
                if character == "/", at(1) == "*" { commentDepth += 1; index += 2; continue }
                if character == "\n" { result.append("\n") }
                index += 1
                continue
            }
            if character == "/", at(1) == "/" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
                continue
            }
            if character == "/", at(1) == "*" { commentDepth = 1; index += 2; continue }
            if character == "#" || character == "\"" {
                // A string literal: count the #s of a raw string, then find its end.
                var hashes = 0
                while at(hashes) == "#" { hashes += 1 }
                guard at(hashes) == "\"" else {
                    result.append(character)
                    index += 1
                    continue
                }
                let multiline = at(hashes + 1) == "\"" && at(hashes + 2) == "\""
                let quote = multiline ? 3 : 1
                result.append(contentsOf: Array(repeating: "#", count: hashes) + Array(repeating: "\"", count: quote))
                index += hashes + quote
                while index < characters.count {
                    if characters[index] == "\\" && hashes == 0 { index += 2; continue }
                    if characters[index] == "\"" && (0..<quote).allSatisfy({ at($0) == "\"" })
                        && (0..<hashes).allSatisfy({ at(quote + $0) == "#" }) {
                        break
                    }
                    if characters[index] == "\n" { result.append("\n") }
                    index += 1
                }
                result.append(contentsOf: Array(repeating: "\"", count: quote) + Array(repeating: "#", count: hashes))
                index += quote + hashes
                continue
            }
            result.append(character)
            index += 1
        }
        return String(result)
    }
}
