#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// The names of the entries of a directory, without `.` and `..`, sorted.
///
/// - Throws: ``SystemError`` when the directory cannot be opened.
func directoryEntries(at path: String) throws(SystemError) -> [String] {
    guard let directory = opendir(path) else { throw SystemError("open directory", path: path) }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// A new, empty directory of this process's own (mode 700) in `$TMPDIR` or `/tmp`, named
/// after `purpose`.
///
/// - Throws: ``SystemError`` when it cannot be created.
func makeTemporaryDirectory(for purpose: String) throws(SystemError) -> String {
    let base = Process.environment("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array((base + "/plugin-host-\(purpose)-XXXXXX").utf8CString)
    guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw SystemError("create a temporary directory", path: base)
    }
    return String(cString: created)
}

/// Removes `path` and, when it is a directory, everything in it; symbolic links are removed,
/// never followed. What cannot be removed is left.
func removeTree(_ path: String) {
    if (try? FileStatus(linkAt: path))?.kind == .directory {
        for name in (try? directoryEntries(at: path)) ?? [] { removeTree(path + "/" + name) }
        rmdir(path)
    } else {
        unlink(path)
    }
}
