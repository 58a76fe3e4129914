#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One end of a socket pair (`SOCK_SEQPACKET`) that carries whole messages of bytes with
/// file descriptors (`SCM_RIGHTS`): how a stopping worker hands the supervisor what its
/// plugins hand over, and how the supervisor passes it on to the next worker. A descriptor
/// in flight stays open in the kernel even once its sender has exited.
struct DescriptorChannel: Sendable {
    /// The most descriptors one message carries (the kernel's `SCM_MAX_FD` is 253).
    static let maximumDescriptors = 250
    /// The most bytes one message carries besides its descriptors.
    static let maximumBytes = 64 * 1024

    let descriptor: Int32

    /// A connected pair; both ends close on `exec`.
    static func pair() throws(SystemError) -> (DescriptorChannel, DescriptorChannel) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw SystemError("socketpair")
        }
        return (DescriptorChannel(descriptor: ends[0]), DescriptorChannel(descriptor: ends[1]))
    }

    /// Sends one message without waiting: `bytes`, and copies of `descriptors`.
    ///
    /// - Returns: Whether it was sent whole.
    func send(_ bytes: [UInt8], descriptors: [Int32]) -> Bool {
        guard bytes.count <= Self.maximumBytes, descriptors.count <= Self.maximumDescriptors else { return false }
        var payload = bytes.isEmpty ? [0] : bytes
        let header = MemoryLayout<cmsghdr>.stride
        let dataLength = descriptors.count * MemoryLayout<Int32>.size
        let space = descriptors.isEmpty ? 0 : header + (dataLength + 7) & ~7
        var control = [UInt8](repeating: 0, count: max(space, 1))
        return payload.withUnsafeMutableBytes { payloadBytes in
            control.withUnsafeMutableBytes { controlBytes in
                if !descriptors.isEmpty {
                    let message = controlBytes.baseAddress!.assumingMemoryBound(to: cmsghdr.self)
                    message.pointee.cmsg_len = header + dataLength
                    message.pointee.cmsg_level = SOL_SOCKET
                    message.pointee.cmsg_type = Int32(SCM_RIGHTS)
                    let data = (controlBytes.baseAddress! + header).assumingMemoryBound(to: Int32.self)
                    for (index, descriptor) in descriptors.enumerated() { data[index] = descriptor }
                }
                var vector = iovec(iov_base: payloadBytes.baseAddress, iov_len: payloadBytes.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    if space > 0 {
                        message.msg_control = controlBytes.baseAddress
                        message.msg_controllen = space
                    }
                    let sent = SystemCall.retryingOnInterrupt { sendmsg(descriptor, &message, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                    return sent == payloadBytes.count
                }
            }
        }
    }

    /// Whether a message, or the other end's going, waits to be received.
    var hasNews: Bool {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return SystemCall.retryingOnInterrupt({ poll(&waiting, 1, 0) }) > 0
    }

    /// Receives one message, waiting up to `limit` for it (`nil`: not at all).
    ///
    /// - Returns: Its bytes and the descriptors it carried (now open in this process), or
    ///   `nil` when none came or the other end is gone.
    func receive(waitingUpTo limit: Duration?) -> (bytes: [UInt8], descriptors: [Int32])? {
        if let limit {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: limit.components.seconds * 1000 + limit.components.attoseconds / 1_000_000_000_000_000)
            guard SystemCall.retryingOnInterrupt({ poll(&waiting, 1, milliseconds) }) > 0 else { return nil }
        }
        var payload = [UInt8](repeating: 0, count: Self.maximumBytes)
        let header = MemoryLayout<cmsghdr>.stride
        let space = header + Self.maximumDescriptors * MemoryLayout<Int32>.size + 8
        var control = [UInt8](repeating: 0, count: space)
        let received: (Int, [Int32]) = payload.withUnsafeMutableBytes { payloadBytes in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: payloadBytes.baseAddress, iov_len: payloadBytes.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = space
                    let count = SystemCall.retryingOnInterrupt {
                        recvmsg(descriptor, &message, Int32(MSG_DONTWAIT) | Int32(MSG_CMSG_CLOEXEC))
                    }
                    guard count > 0 else { return (count, []) }
                    var descriptors: [Int32] = []
                    var offset = 0
                    while offset + header <= message.msg_controllen {
                        let entry = (controlBytes.baseAddress! + offset).assumingMemoryBound(to: cmsghdr.self).pointee
                        guard entry.cmsg_len >= header else { break }
                        if entry.cmsg_level == SOL_SOCKET, entry.cmsg_type == Int32(SCM_RIGHTS) {
                            let count = (Int(entry.cmsg_len) - header) / MemoryLayout<Int32>.size
                            let data = (controlBytes.baseAddress! + offset + header).assumingMemoryBound(to: Int32.self)
                            descriptors += (0..<count).map { data[$0] }
                        }
                        offset += (Int(entry.cmsg_len) + 7) & ~7
                    }
                    return (count, descriptors)
                }
            }
        }
        guard received.0 > 0 else { return nil }
        return (Array(payload[..<received.0]), received.1)
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}
