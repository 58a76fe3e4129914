#if canImport(Glibc)
import Glibc
#endif

// Compiled into every fixture plugin (see the Makefile's fixtures rule).

/// Appends `line` to the file at `path` with one write(2), so that lines of several
/// processes and threads do not interleave, and without stdio, whose lock a misbehaving
/// plugin may hold.
func appendLine(_ line: String, to path: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return }
    let bytes = Array((line + "\n").utf8)
    _ = write(descriptor, bytes, bytes.count)
    close(descriptor)
}

/// The first line of the file at `path`, without its newline; `nil` when it cannot be read.
func firstLine(of path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 4096)
    let count = read(descriptor, &bytes, bytes.count)
    guard count >= 0 else { return nil }
    return String(decoding: bytes[..<count].prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
}
