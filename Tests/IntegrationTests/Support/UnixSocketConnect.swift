#if canImport(Glibc)
import Glibc
#endif

/// Connects `descriptor`, a Unix stream socket, to the socket file at `path`.
///
/// - Returns: What `connect` returns: 0, or -1 with `errno` set.
func connect(_ descriptor: Int32, toUnixPath path: String) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
    }
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}
