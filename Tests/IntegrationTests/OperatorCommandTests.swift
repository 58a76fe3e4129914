import Foundation
import FoundationXML
import Testing

/// list, inspect, check and graph: what an operator sees, without any plugin code running.
@Suite("Operator commands: list, inspect, check, graph")
struct OperatorCommandTests {
    private func host(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try Command.run(Repository.host.path, arguments, environment: environment)
    }

    @Test("none of list, inspect, check or graph loads a plugin: a plugin that marks or crashes when loaded does neither",
          arguments: ["list", "inspect", "check", "graph"])
    func noPluginCodeRuns(command: String) throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["Marker"])
        let mark = directory.root.appending(path: "loaded")
        let environment = ["MARKER_FILE": mark.path, "MARKER_CRASH": "1"]
        let arguments = command == "inspect"
            ? ["inspect", directory.plugins.appending(path: "libMarker.so").path] : [command, "--dir", directory.plugins.path]
        let result = try host(arguments, environment: environment)
        #expect(!result.signalled)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: mark.path), "\(command) loaded the plugin")

        // The control: a run does load it, and the mark appears.
        let run = try directory.runHost(environment: ["MARKER_FILE": mark.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(FileManager.default.fileExists(atPath: mark.path))
    }

    @Test("list gives name, version, ABI, requirements, file and whether each plugin is loadable")
    func list() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["NeedsGhost", "Marker"])
        try directory.write("not a plugin", to: "libnotes.so")
        let result = try host(["list", "--dir", directory.plugins.path])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("  plugin       version  abi  requires"))
        #expect(lines.contains { $0.contains("Domain       1.0.0    2    Persistence") && $0.hasSuffix("loadable      \(directory.plugins.path)/libDomain.so") })
        #expect(lines.contains { $0.contains("Marker       2.1.0    2    Persistence,Metrics?") })
        #expect(lines.contains { $0.contains("NeedsGhost") && $0.contains("NOT LOADABLE") })
        #expect(result.standardOutput.contains("\n  plugin NeedsGhost (\(directory.plugins.path)/libNeedsGhost.so) requires Ghost, which is not installed"))
        #expect(result.standardOutput.contains("\n  \(directory.plugins.path)/libnotes.so: not a loadable ELF shared object: not an ELF file"))

        let json = try host(["list", "--dir", directory.plugins.path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any] ?? [:]
        let plugins = object["plugins"] as? [[String: Any]] ?? []
        let ghost = try #require(plugins.first { $0["name"] as? String == "NeedsGhost" })
        #expect(ghost["loadable"] as? Bool == false)
        #expect(ghost["requires"] as? [String] == ["Ghost"])
        #expect(plugins.first { $0["name"] as? String == "Persistence" }?["loadable"] as? Bool == true)
    }

    @Test("inspect shows the whole manifest with the file's path, size and modification time")
    func inspect() throws {
        let directory = try PluginDirectoryFixture(fixtures: ["Marker"])
        let file = directory.plugins.appending(path: "libMarker.so")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        let result = try host(["inspect", file.path])
        #expect(result.status == 0)
        let text = result.standardOutput
        #expect(text.contains("file:      \(file.resolvingSymlinksInPath().path)\n"))
        #expect(text.contains("size:      \((attributes[.size] as? Int) ?? -1) bytes\n"))
        #expect(text.contains("name:      Marker\nversion:   2.1.0\nabi:       2 (this host: 2)\nrequires:  Persistence\noptional:  Metrics\n"))
        #expect(text.contains(#""homepage":"https://example.invalid/marker""#))
        let modified = try #require(text.split(separator: "\n").first { $0.hasPrefix("modified:") })
        #expect(modified.wholeMatch(of: /modified:  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil)

        let json = try host(["inspect", "--json", file.path])
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any] ?? [:]
        #expect(object["name"] as? String == "Marker")
        #expect(object["size"] as? Int == attributes[.size] as? Int)

        let bad = try host(["inspect", "/nonexistent/libX.so"])
        #expect(bad.status == 1)
        #expect(bad.standardError.hasPrefix("plugin-host: error: cannot inspect /nonexistent/libX.so: stat /nonexistent/libX.so: No such file or directory"))
    }

    @Test("check exits 0 when the directory would bootstrap and 1 with every problem otherwise")
    func check() throws {
        let good = try PluginDirectoryFixture.demo()
        let passed = try host(["check", "--dir", good.plugins.path])
        #expect(passed.status == 0)
        #expect(passed.standardOutput == "check passed: 3 plugins in \(good.plugins.path) would bootstrap in this order: Persistence, Domain, Application\n")

        let bad = try PluginDirectoryFixture.demo(fixtures: ["CycleA", "CycleB", "CycleC", "NeedsGhost", "FutureABI"])
        let failed = try host(["check", "--dir", bad.plugins.path])
        #expect(failed.status == 1)
        #expect(failed.standardOutput == "check failed: 3 problems in \(bad.plugins.path)\n")
        #expect(failed.standardError.contains("dependency cycle: CycleA -> CycleB -> CycleC -> CycleA"))
        #expect(failed.standardError.contains("requires Ghost, which is not installed"))
        #expect(failed.standardError.contains("was built for plugin ABI 99"))
    }

    @Test("graph prints DOT: a node per plugin with its version, an edge per requirement, problems in red")
    func graph() throws {
        let directory = try PluginDirectoryFixture.demo(fixtures: ["CycleA", "CycleB", "CycleC", "NeedsGhost", "Gauges"])
        let result = try host(["graph", "--dir", directory.plugins.path])
        #expect(result.status == 0)
        let dot = result.standardOutput
        #expect(dot.hasPrefix("digraph plugins {\n"))
        #expect(dot.hasSuffix("}\n"))
        #expect(dot.contains(#""Domain" [label="Domain\n1.0.0"];"#))
        #expect(dot.contains(#""Domain" -> "Persistence" [label="^1.0.0"];"#), "labelled with the versions Domain works with")
        #expect(dot.contains(#""Gauges" -> "Persistence" [style=dashed];"#))
        #expect(dot.contains(#""CycleA" [label="CycleA\n1.0.0", color=red, fontcolor=red];"#))
        #expect(dot.contains(#""CycleA" -> "CycleB" [color=red];"#))
        #expect(dot.contains(#""NeedsGhost" -> "Ghost" [color=red];"#))
        #expect(dot.contains(#""Ghost" [label="Ghost\nmissing", color=red, fontcolor=red, style="rounded,dashed"];"#))
        #expect(!dot.contains(#""Domain" [label="Domain\n1.0.0", color=red"#))
    }

    @Test("several directories: --dir repeats, PLUGIN_HOST_PATH adds more; the first holding a name wins, the others are shadowed")
    func searchPath() throws {
        let first = try PluginDirectoryFixture.demo()
        let second = try PluginDirectoryFixture(demo: ["Domain"], fixtures: ["Ripener"])
        let third = try PluginDirectoryFixture(demo: ["Domain"], fixtures: ["Twin"])
        let (result, report) = try first.runHostJSON(["--dir", second.plugins.path], environment: ["PLUGIN_HOST_PATH": third.plugins.path])
        #expect(result.status == 0, "\(result.standardError)")
        let names = report.plugins.compactMap { $0["name"] as? String }
        #expect(Set(names) == ["Persistence", "Domain", "Application", "Ripener", "Twin"])
        let domain = try #require(report.plugins.first { $0["name"] as? String == "Domain" })
        #expect(domain["file"] as? String == first.plugins.appending(path: "libDomain.so").path)
        #expect(domain["shadowed"] as? [String] == [second.plugins.appending(path: "libDomain.so").path, third.plugins.appending(path: "libDomain.so").path])
        #expect(result.standardError.contains("plugin-host: note: plugin Domain: using \(first.plugins.path)/libDomain.so; shadowed: "))

        let listed = try host(["list", "--dir", first.plugins.path, "--dir", second.plugins.path])
        #expect(listed.standardOutput.contains("note: plugin Domain: using \(first.plugins.path)/libDomain.so; shadowed: \(second.plugins.path)/libDomain.so"))
    }

    @Test("--timeline writes an SVG with a bar per plugin that ran and the critical chain outlined")
    func timeline() throws {
        // Only these plugins, so that RecA -> RecB is the critical chain however long any
        // other bootstrap would take on a loaded machine.
        let directory = try PluginDirectoryFixture(fixtures: ["RecA", "RecB", "Failing"])
        try directory.configure(#""RecA": {"bootstrapDelay": 30}, "RecB": {"bootstrapDelay": 30}"#)
        let svg = directory.root.appending(path: "boot.svg")
        let result = try directory.runHost(["--keep-going", "--timeline", svg.path])
        #expect(result.status == 1)
        let text = try String(contentsOf: svg, encoding: .utf8)
        let parser = XMLParser(data: Data(text.utf8))
        #expect(parser.parse(), "the SVG is not well-formed XML: \(String(describing: parser.parserError))")
        #expect(text.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(text.components(separatedBy: "<title>").count - 1 == 3)
        #expect(text.components(separatedBy: "stroke=\"#111\" stroke-width=\"2.5\"/>").count - 1 == 2 + 1)  // RecA, RecB and the legend
        #expect(text.contains("fill=\"#d23c3c\""))
        #expect(result.standardOutput.contains("\nSlowest: "))
        #expect(result.standardOutput.contains("\nCritical chain: RecA @"))
        #expect(result.standardOutput.contains(" -> RecB @"))
    }
}
