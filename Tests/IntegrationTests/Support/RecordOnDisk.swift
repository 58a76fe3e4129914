import Foundation

/// The record a host keeps in a state directory, as the tests read it.
enum RecordOnDisk {
    /// The record in `state`, as text; empty while there is none.
    static func text(in state: URL) -> String {
        let file = (try? FileManager.default.contentsOfDirectory(at: state, includingPropertiesForKeys: nil))?.first { $0.lastPathComponent.hasPrefix("record-") }
        return file.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
    }
}
