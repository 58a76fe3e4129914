#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file with no name, for bytes one process hands another as a descriptor: created in
/// `/dev/shm` (memory), else `/tmp`, and unlinked at once, so that it goes away with its
/// last descriptor.
enum AnonymousFile {
    /// A new one holding `bytes`, open for reading; `nil` when none can be made.
    static func holding(_ bytes: [UInt8]) -> FileDescriptor? {
        for directory in ["/dev/shm", "/tmp"] {
            var template = Array("\(directory)/plugin-host-handoff-XXXXXX".utf8CString)
            let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard descriptor >= 0 else { continue }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { chunk in SystemCall.retryingOnInterrupt { write(descriptor, chunk.baseAddress, chunk.count) } }
                guard count > 0 else { break }
                written += count
            }
            if written == bytes.count { return FileDescriptor(rawValue: descriptor) }
            _ = close(descriptor)
        }
        return nil
    }

    /// `length` bytes of `file` from `offset`; `nil` when they cannot all be read.
    static func read(_ file: FileDescriptor, at offset: Int, length: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: length)
        let read = buffer.withUnsafeMutableBytes { bytes in
            SystemCall.retryingOnInterrupt { pread(file.rawValue, bytes.baseAddress, length, off_t(offset)) }
        }
        return read == length ? buffer : nil
    }
}

extension FileDescriptor {
    /// Whether it names an open file in this process.
    var isOpen: Bool { fcntl(rawValue, F_GETFD) >= 0 }
}
