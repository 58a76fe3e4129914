import Synchronization

/// An open descriptor of each plugin file a worker loaded, kept for the worker's life, so
/// that the supervisor can hold the very bytes that run (it opens the worker's
/// `/proc/PID/fd/N`) even when the file's name was replaced or removed before it could
/// open the name itself. A plugin that closes one only costs that hold.
///
/// They take at most a quarter of the worker's descriptor limit, so that plugins keep the
/// descriptors (and the numbers below 1024 that `select` needs) they would have without
/// them; past that, a build is held by its name only.
enum LoadedFiles {
    private static let kept = Mutex<[Kept]>([])
    static let most = Int(min(DescriptorLimit.current.soft / 4, 4096))

    /// Keeps `path`, opened once it was loaded, when it is still `identity`, the build the
    /// survey found there before the load: `path` named that build before the load and after
    /// it, so the load read it (a file replaced in between is another inode, one written in
    /// place has another size or modification time).
    static func keep(loadedFrom path: String, as identity: FileIdentity?) {
        guard let identity, let file = try? ReadOnlyFile(path: path), let opened = try? file.status(),
            opened.identity.hasSameContents(as: identity)
        else { return }
        kept.withLock { kept in
            if kept.count < most { kept.append(Kept(file: file)) }
        }
    }

    /// A file kept open and never read again: nothing can race on it.
    private final class Kept: @unchecked Sendable {
        let file: ReadOnlyFile
        init(file: ReadOnlyFile) { self.file = file }
    }
}
