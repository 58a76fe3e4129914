#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Changes to `*.so` files in a set of directories, through inotify: a file created,
/// written and closed, moved in or out, removed, or its attributes changed.
struct DirectoryWatch: Sendable {
    /// The descriptor to poll for reading.
    let descriptor: FileDescriptor

    /// Watches `directories`; `nil` when inotify is not available.
    ///
    /// - Returns: `nil` with the directories that cannot be watched.
    init?(directories: [String]) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_ATTRIB)
        var watched = 0
        for directory in directories where inotify_add_watch(descriptor, directory, mask) >= 0 { watched += 1 }
        guard watched > 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = FileDescriptor(rawValue: descriptor)
    }

    /// Reads every event waiting; whether one concerned a `*.so` file.
    func takeChanges() -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = SystemCall.retryingOnInterrupt { buffer.withUnsafeMutableBytes { read(descriptor.rawValue, $0.baseAddress, $0.count) } }
            guard count > 0 else { return changed }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let length = buffer.withUnsafeBytes { Int($0.load(fromByteOffset: offset + 12, as: UInt32.self)) }
                let name = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
                if name.count > 3 && name.suffix(3).elementsEqual(".so".utf8) { changed = true }
                offset += header + length
            }
        }
    }
}
