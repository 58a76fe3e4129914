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
    private static let most = Int(min(DescriptorLimit.current.soft / 4, 4096))

    /// Keeps `file`, opened before `path` was loaded, when it is the build
    /// `identity` and `path` still names it now that it is loaded: then it is what was loaded.
    static func keep(_ file: ReadOnlyFile?, loadedFrom path: String, as identity: FileIdentity?) {
        guard let file, let identity, let opened = try? file.status(), opened.identity.hasSameContents(as: identity),
            let named = try? FileStatus(path: path), named.identity.hasSameContents(as: identity)
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
