#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few file system calls the store needs, with the durability steps spelled out.
enum FileOperations {
    /// Creates `path` and its missing parents.
    static func createDirectories(_ path: String) throws(BananaStoreError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw .unwritable(path: path, reason: "cannot create directory \(prefix): \(reason())")
            }
            prefix += "/"
        }
    }

    /// The bytes of the file at `path`, or `nil` when there is no such file.
    static func contents(of path: String) throws(BananaStoreError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .unreadable(path: path, reason: reason())
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: reason())
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// Replaces the file at `path` with `bytes` so that a crash at any moment leaves
    /// either the old file or the new one: write a temporary file beside it, `fsync` it,
    /// `rename` it over the old one, `fsync` the directory.
    static func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(BananaStoreError) {
        let temporary = "\(path).tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .unwritable(path: path, reason: "cannot create \(temporary): \(reason())") }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let failure = reason()
                close(descriptor)
                unlink(temporary)
                throw .unwritable(path: path, reason: "cannot write \(temporary): \(failure)")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            let failure = reason()
            close(descriptor)
            unlink(temporary)
            throw .unwritable(path: path, reason: "cannot flush \(temporary) to disk: \(failure)")
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let failure = reason()
            unlink(temporary)
            throw .unwritable(path: path, reason: "cannot rename \(temporary) to \(path): \(failure)")
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let directoryDescriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            defer { close(directoryDescriptor) }
            guard fsync(directoryDescriptor) == 0 else {
                throw .unwritable(path: path, reason: "cannot flush directory \(directory) to disk: \(reason())")
            }
        }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
