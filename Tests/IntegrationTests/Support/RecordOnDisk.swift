import Foundation

/// The record a host keeps in a state directory, as the tests read it.
enum RecordOnDisk {
    /// The record in `state`, as text; empty while there is none.
    static func text(in state: URL) -> String {
        file(in: state).flatMap { try? String(contentsOf: state.appending(path: $0), encoding: .utf8) } ?? ""
    }

    /// The name of the record's file in `state` (not its lock, nor a write's temporary file).
    static func file(in state: URL) -> String? {
        names(in: state).first
    }

    /// The names of the records' files in `state`.
    static func names(in state: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: state.path)) ?? []).filter { name in
            name.hasPrefix("record-") && !name.hasSuffix(".lock") && !name.hasSuffix(".tmp")
        }.sorted()
    }
}
