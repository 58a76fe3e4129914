#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// The Unix stream socket a supervisor answers its operators on: a file of mode 0600 in a
/// directory only its user may enter, which it removes when it ends.
struct ControlSocket {
    let descriptor: FileDescriptor
    let path: String
    /// The socket file, to remove it only while it is still this one.
    private let identity: FileIdentity?

    /// Listens at `path`, creating its directory (mode 0700) when missing. A socket file
    /// nobody answers on is replaced.
    ///
    /// - Parameter privateDirectory: Whether the directory must be the user's own and closed
    ///   to everyone else (a default path in a shared place such as `/tmp`), so that no other
    ///   user can put a socket of theirs where clients look.
    /// - Throws: ``SocketError`` when the path is too long, its directory cannot be made or is
    ///   not private, another process answers on it, or the system refuses.
    static func listen(at path: String, privateDirectory: Bool = false) throws(SocketError) -> ControlSocket {
        var address = sockaddr_un()
        let length = try fill(&address, with: path)
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let directory = String(path[..<slash])
            try makeDirectory(directory)
            if privateDirectory, let status = try? FileStatus(linkAt: directory),
                status.kind != .directory || status.owner != UInt32(geteuid()) || status.permissions & 0o022 != 0 {
                throw SocketError(
                    address: path,
                    reason: "its directory \(directory) belongs to another user, or others may write to it; remove it, or give --control PATH")
            }
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(address: path, errno: errno, doing: "create a socket") }
        func bindAndListen() -> Int32 {
            // Made with mode 0600 from the start: no moment where another user could connect.
            let mask = umask(0o177)
            defer { umask(mask) }
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
            } == 0 && Glibc.listen(descriptor, 128) == 0 ? 0 : errno
        }
        var failure = bindAndListen()
        if failure == EADDRINUSE {
            guard !answers(path) else {
                _ = Glibc.close(descriptor)
                throw SocketError(address: path, reason: "another process answers on it (a plugin-host for the same plugin directories?)")
            }
            unlink(path)
            failure = bindAndListen()
        }
        guard failure == 0 else {
            _ = Glibc.close(descriptor)
            throw SocketError(address: path, errno: failure)
        }
        return ControlSocket(descriptor: FileDescriptor(rawValue: descriptor), path: path, identity: try? FileStatus(linkAt: path).identity)
    }

    /// Takes the next connection waiting, if any; it does not block.
    func accept() -> Connection? {
        Connection.accept(on: descriptor)
    }

    /// Stops listening and removes the file, unless another one took its place, or
    /// `removingFile` is false (another host serves on it).
    func close(removingFile: Bool = true) {
        descriptor.close()
        if removingFile, let identity, (try? FileStatus(linkAt: path))?.identity.hasSameContents(as: identity) == true { unlink(path) }
    }

    /// Whether a process answers on the socket file at `path`.
    static func answers(_ path: String) -> Bool {
        guard let client = try? Connection.connect(to: path) else { return false }
        client.close()
        return true
    }

    /// Puts `path` in `address`; its length.
    fileprivate static func fill(_ address: inout sockaddr_un, with path: String) throws(SocketError) -> socklen_t {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SocketError(address: path, reason: "a Unix socket path must be 1 to 107 bytes long")
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
    }

    /// Makes `directory` and its missing parents; the last with mode 0700.
    private static func makeDirectory(_ directory: String) throws(SocketError) {
        if (try? FileStatus(path: directory))?.kind == .directory { return }
        if let slash = directory.lastIndex(of: "/"), slash != directory.startIndex {
            try makeDirectory(String(directory[..<slash]))
        }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw SocketError(address: directory, errno: errno, doing: "create the directory \(directory)")
        }
    }
}

/// One connection of a Unix or TCP stream socket, used without blocking (the supervisor's)
/// or blocking (a client's).
struct Connection: Hashable, Sendable {
    let descriptor: FileDescriptor

    /// Who is at the other end of a Unix socket.
    struct Peer: Equatable, Sendable {
        let process: ProcessID
        let user: UInt32
    }

    /// The process and user at the other end, for a Unix socket (`SO_PEERCRED`).
    var peer: Peer? {
        // `struct ucred`, which the C module leaves out: pid, uid, gid.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(descriptor.rawValue, SOL_SOCKET, Self.peerCredentialsOption, &credentials, &length) == 0,
            Int(length) == MemoryLayout<(Int32, UInt32, UInt32)>.size
        else { return nil }
        return Peer(process: ProcessID(rawValue: credentials.pid), user: credentials.uid)
    }

    /// `SO_PEERCRED`, which the C module leaves out: 17 on Linux's x86-64 and ARM64.
    private static let peerCredentialsOption: Int32 = 17

    /// What a read without blocking found.
    enum Received: Equatable {
        case bytes([UInt8])
        /// Nothing yet.
        case nothing
        /// The other end closed, or the connection failed.
        case closed
    }

    /// Reads what is there, up to `limit` bytes, without blocking.
    func receive(upTo limit: Int) -> Received {
        var buffer = [UInt8](repeating: 0, count: max(1, limit))
        let count = SystemCall.retryingOnInterrupt { buffer.withUnsafeMutableBytes { recv(descriptor.rawValue, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) } }
        if count > 0 { return .bytes(Array(buffer[..<count])) }
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .nothing }
        return .closed
    }

    /// Whether the other end of a Unix socket has closed, not only shut its writing side
    /// (`shutdown(SHUT_WR)` after its request, as `socat` and many scripts do), after a read
    /// found the end of its bytes.
    var peerHasClosed: Bool {
        var waiting = pollfd(fd: descriptor.rawValue, events: Int16(POLLOUT), revents: 0)
        return poll(&waiting, 1, 0) < 0 || waiting.revents & Int16(POLLHUP | POLLERR) != 0
    }

    /// Writes what it can of `bytes` from `offset` without blocking.
    ///
    /// - Returns: How many bytes were written; `nil` when the connection is broken.
    func send(_ bytes: [UInt8], from offset: Int) -> Int? {
        guard offset < bytes.count else { return 0 }
        let written = SystemCall.retryingOnInterrupt {
            bytes.withUnsafeBytes { Glibc.send(descriptor.rawValue, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        }
        if written >= 0 { return written }
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : nil
    }

    func close() { descriptor.close() }

    /// Takes the next connection waiting on the listening socket `listening`, made
    /// non-blocking, if any; it does not block.
    static func accept(on listening: FileDescriptor) -> Connection? {
        guard let acceptWithFlags else { return nil }
        let client = SystemCall.retryingOnInterrupt {
            acceptWithFlags(listening.rawValue, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
        }
        return client >= 0 ? Connection(descriptor: FileDescriptor(rawValue: client)) : nil
    }

    private typealias AcceptWithFlags = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32

    /// `accept4`, which the C module leaves out: it makes the new descriptor non-blocking
    /// and close-on-exec in one call.
    private static let acceptWithFlags: AcceptWithFlags? = {
        guard let symbol = dlsym(nil, "accept4") else { return nil }
        return unsafeBitCast(symbol, to: AcceptWithFlags.self)
    }()

    // MARK: A client's side, blocking

    /// Connects to the Unix socket at `path`.
    ///
    /// - Throws: ``SystemError`` when nobody answers there, or the caller may not connect.
    static func connect(to path: String) throws(SystemError) -> Connection {
        var address = sockaddr_un()
        guard let length = try? ControlSocket.fill(&address, with: path) else { throw SystemError("connect", path: path, code: ENAMETOOLONG) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemError("connect", path: path) }
        let connected = SystemCall.retryingOnInterrupt {
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
            }
        }
        guard connected == 0 else {
            let error = SystemError("connect", path: path)
            _ = Glibc.close(descriptor)
            throw error
        }
        return Connection(descriptor: FileDescriptor(rawValue: descriptor))
    }

    /// Makes a blocking receive give up after `limit`, as if the connection had closed.
    func giveUpReceiving(after limit: Duration) {
        var time = timeval(tv_sec: Int(limit.components.seconds), tv_usec: Int(limit.components.attoseconds / 1_000_000_000_000))
        _ = setsockopt(descriptor.rawValue, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `bytes`, blocking; whether it could.
    func sendAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = SystemCall.retryingOnInterrupt {
                bytes.withUnsafeBytes { Glibc.send(descriptor.rawValue, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads up to `limit` bytes, blocking until some come; empty at the end.
    func receiveBlocking(upTo limit: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = SystemCall.retryingOnInterrupt { buffer.withUnsafeMutableBytes { recv(descriptor.rawValue, $0.baseAddress, $0.count, 0) } }
        return count > 0 ? Array(buffer[..<count]) : []
    }
}

extension ControlSocket {
    /// The control socket the host before of a host upgrade listens on at `path`, passed as
    /// `descriptor`: this host removes its file when it ends for good.
    init(takingOver descriptor: FileDescriptor, at path: String) {
        self.init(descriptor: descriptor, path: path, identity: try? FileStatus(linkAt: path).identity)
    }
}
