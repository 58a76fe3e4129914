#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// One end of a connected pair of stream sockets (`SOCK_STREAM`), carrying bytes both ways:
/// how the supervisor hands its record's writer process what to write, and hears back what
/// it wrote. What one end wrote before it ended is still read by the other.
struct ByteStream: Sendable {
    let descriptor: FileDescriptor

    /// A connected pair; both ends close on `exec`.
    static func pair() throws(SystemError) -> (ByteStream, ByteStream) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw SystemError("socketpair")
        }
        return (ByteStream(descriptor: FileDescriptor(rawValue: ends[0])), ByteStream(descriptor: FileDescriptor(rawValue: ends[1])))
    }

    /// Writes as much of `bytes` from `offset` as the socket takes now.
    ///
    /// - Returns: How many bytes were written (0 when it takes none now); `nil` when the other
    ///   end is gone.
    func writeSome(_ bytes: [UInt8], from offset: Int) -> Int? {
        guard offset < bytes.count else { return 0 }
        let written = SystemCall.retryingOnInterrupt {
            bytes.withUnsafeBytes { send(descriptor.rawValue, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
        }
        if written >= 0 { return written }
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : nil
    }

    /// Writes all of `bytes`, waiting as long as the other end takes to read them.
    ///
    /// - Returns: Whether they were all written.
    func writeAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            guard let written = writeSome(bytes, from: offset) else { return false }
            offset += written
        }
        return true
    }

    /// Reads what is there now, at most `limit` bytes; on a blocking end, waits for some.
    ///
    /// - Returns: The bytes (empty when none are there now); `nil` once the other end has
    ///   ended and everything it wrote was read.
    func read(upTo limit: Int = 65_536) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = SystemCall.retryingOnInterrupt { buffer.withUnsafeMutableBytes { recv(descriptor.rawValue, $0.baseAddress, limit, 0) } }
        if count > 0 { return Array(buffer[..<count]) }
        if count == 0 { return nil }
        return errno == EAGAIN || errno == EWOULDBLOCK ? [] : nil
    }

    /// Whether bytes wait to be read, without waiting for them.
    var hasBytesWaiting: Bool {
        var waiting = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
        return SystemCall.retryingOnInterrupt { poll(&waiting, 1, 0) } > 0
    }

    /// Says this end writes no more: the other end reads the end of the stream once it has
    /// read what was written.
    func finishWriting() {
        _ = shutdown(descriptor.rawValue, Int32(SHUT_WR))
    }

    func close() {
        descriptor.close()
    }
}
