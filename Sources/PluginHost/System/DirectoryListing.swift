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
