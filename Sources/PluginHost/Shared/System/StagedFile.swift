#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file written under a temporary name beside its target, then renamed over it: a reader
/// of the target sees the old file or the new one, whole, never half of one; the old file
/// keeps its inode (a process that mapped it keeps its bytes) and goes away with its last
/// user. `plugin-host install` stages every file first, and renames only when all are staged.
struct StagedFile {
    /// Where it goes, and where it waits.
    let target: String
    let staging: String

    /// Writes `contents` beside `target` with `mode`, flushed to disk.
    ///
    /// - Throws: ``SystemError`` naming what failed; nothing is left behind then.
    static func stage(_ contents: [UInt8], as target: String, mode: mode_t) throws(SystemError) -> StagedFile {
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var template = Array("\(directory)/.\(name).install-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw SystemError("create a file in", path: directory) }
        let staging = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { _ = close(descriptor) }
        var written = 0
        while written < contents.count {
            let count = contents[written...].withUnsafeBytes { chunk in SystemCall.retryingOnInterrupt { write(descriptor, chunk.baseAddress, chunk.count) } }
            guard count > 0 else {
                let error = SystemError("write", path: staging)
                _ = unlink(staging)
                throw error
            }
            written += count
        }
        guard fchmod(descriptor, mode) == 0, fsync(descriptor) == 0 else {
            let error = SystemError("write", path: staging)
            _ = unlink(staging)
            throw error
        }
        return StagedFile(target: target, staging: staging)
    }

    /// Renames it over its target.
    func commit() throws(SystemError) {
        guard rename(staging, target) == 0 else { throw SystemError("rename \(staging) to", path: target) }
    }

    /// Removes it: it does not go in.
    func discard() {
        _ = unlink(staging)
    }
}
