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
