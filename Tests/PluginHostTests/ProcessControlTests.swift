import Foundation
import Testing

@testable import PluginHost

@Suite("ProcessControl: the processes of the host")
struct ProcessControlTests {
    @Test("a process that has started a child knows it has one, and lists it")
    func childIsSeen() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/cat")
        child.standardInput = Pipe()
        try child.run()
        defer {
            // SIGKILL: the test process may hand its children a mask that blocks SIGTERM.
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        #expect(ProcessControl.hasChildren)
        #expect(ProcessControl.children().contains(ProcessID(rawValue: child.processIdentifier)))
    }
}
