#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// systemd's notification socket (`NOTIFY_SOCKET`): one datagram per message, such as
/// `READY=1` or `STATUS=...`, on an `AF_UNIX` socket given by path or, starting with `@`,
/// by an abstract name. Sending never blocks: a message the socket cannot take now is
/// dropped, as `sd_notify` would drop it.
struct NotifySocket: Sendable {
    /// The socket's descriptor, which a forked worker closes.
    let descriptor: FileDescriptor
    private let address: [UInt8]

    /// Opens a socket for the address `NOTIFY_SOCKET` gives; `nil` when it is not one
    /// (empty, too long, or not absolute) or no socket can be made.
    init?(address text: String) {
        var bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "/") || first == UInt8(ascii: "@") else { return nil }
        if first == UInt8(ascii: "@") { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        self.descriptor = FileDescriptor(rawValue: descriptor)
        address = bytes
    }

    /// Sends `message`; whether the socket took it.
    @discardableResult
    func send(_ message: String) -> Bool {
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { path in
            for (index, byte) in address.enumerated() { path[index] = byte }
        }
        // An abstract name's length counts exactly its bytes; a path's ends at its NUL.
        let length = MemoryLayout<sa_family_t>.size + address.count + (address.first == 0 ? 0 : 1)
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                sendto(descriptor.rawValue, bytes, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL), address, socklen_t(length))
            }
        }
        return sent == bytes.count
    }
}
