internal import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A durable store of bananas: a JSON file in a data directory.
///
/// Every change is written atomically: the new contents go to a temporary file in the same
/// directory, which is flushed to disk, renamed over the store, and the directory is
/// flushed too. A run interrupted at any point leaves either the old store or the new one,
/// never a mix. A store file that cannot be read is reported, never replaced.
///
/// One process at a time: opening takes a lock on `bananas.lock` in the same directory,
/// held until the store is closed or the process ends; a second process fails with
/// ``BananaStoreError/inUse(path:holder:)``, naming the holder, instead of interleaving its
/// writes. Every write first checks that the lock is still held.
public final class BananaStore: BananaStoring {
    /// The store file.
    public let path: String
    private let bananas: Mutex<[Banana]>
    private let lock: FileOperations.Lock

    private struct Contents: Codable {
        var format: Int
        var bananas: [Banana]
    }

    private static let format = 1

    /// Opens the store in `directory`, creating the directory if needed.
    ///
    /// - Throws: ``BananaStoreError`` when the directory cannot be created or the store
    ///   file exists but cannot be read or parsed.
    public init(directory: String) throws(BananaStoreError) {
        try FileOperations.createDirectories(directory)
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        path = prefix + "bananas.json"
        lock = try FileOperations.Lock(path: prefix + "bananas.lock", guarding: path)
        FileOperations.removeLeftover(temporaryFileFor: path)
        bananas = Mutex(try Self.load(path))
    }

    /// The bananas in the store, by id.
    public var all: [Banana] { bananas.withLock { $0 } }

    /// Changes the bananas and saves them before returning.
    ///
    /// - Parameter change: Modifies the bananas; the store is unchanged when it throws.
    /// - Returns: What `change` returned.
    /// - Throws: What `change` throws, or ``BananaStoreError`` when saving fails; the
    ///   store then still holds the previous bananas, in memory and on disk.
    public func update<Result>(_ change: (inout [Banana]) throws -> Result) throws -> Result {
        try bananas.withLock { current in
            guard !lock.isReleased else { throw BananaStoreError.closed(path: path) }
            try lock.verify()
            var changed = current
            let result = try change(&changed)
            let data: Data
            do {
                data = try JSONEncoder().encode(Contents(format: Self.format, bananas: changed))
            } catch {
                throw BananaStoreError.unwritable(path: path, reason: "\(error)")
            }
            try FileOperations.replaceAtomically(path, with: Array(data))
            current = changed
            return result
        }
    }

    /// Closes the store: every acknowledged change is on disk already (each `update`
    /// returns after `fsync`), so this waits for a change in progress and releases the
    /// lock, letting another process open the store. Later updates throw.
    public func close() {
        bananas.withLock { _ in lock.release() }
    }

    private static func load(_ path: String) throws(BananaStoreError) -> [Banana] {
        guard let bytes = try FileOperations.contents(of: path) else { return [] }
        let contents: Contents
        do {
            contents = try JSONDecoder().decode(Contents.self, from: Data(bytes))
        } catch {
            throw .corrupt(path: path, reason: "it is not a banana store (\(error))")
        }
        guard contents.format == format else {
            throw .corrupt(path: path, reason: "it has format \(contents.format); this plugin reads format \(format)")
        }
        return contents.bananas
    }
}

/// The banana store cannot be read or written.
public enum BananaStoreError: Error, CustomStringConvertible {
    case corrupt(path: String, reason: String)
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)
    case inUse(path: String, holder: String)
    case lockLost(path: String, reason: String)
    case closed(path: String)

    public var description: String {
        switch self {
        case .corrupt(let path, let reason):
            "banana store \(path) cannot be used: \(reason); it was left as it is: "
                + "restore it from a backup or move it aside to start an empty store"
        case .unreadable(let path, let reason):
            "cannot read banana store \(path): \(reason)"
        case .unwritable(let path, let reason):
            "cannot save banana store \(path): \(reason); the previous contents are kept"
        case .lockLost(let path, let reason):
            "banana store \(path) is no longer locked for this process: \(reason); nothing was written, "
                + "so that no other process's changes are overwritten"
        case .closed(let path):
            "banana store \(path) is closed: the host is shutting down"
        case .inUse(let path, let holder):
            "banana store \(path) is in use by \(holder); run one host per data directory, "
                + "or give this one another \"dataDirectory\""
        }
    }
}
