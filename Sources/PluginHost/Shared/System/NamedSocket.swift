#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// A socket the host listens on, by name, for its plugins: taken from systemd's socket
/// activation, or opened from an address (`--listen NAME=ADDRESS`). The supervisor holds it
/// for the life of the host, so that connections wait in its backlog while one worker
/// generation gives way to the next.
struct NamedSocket: Sendable, Equatable {
    let name: String
    let descriptor: Int32
    /// The file of a Unix socket the host created, removed when it ends.
    let createdFile: String?
    /// Where it listens, as the operator gave it (or `systemd` for a socket systemd passed).
    var address = "systemd"

    /// The sockets systemd passed (`LISTEN_FDS`, `LISTEN_PID`, `LISTEN_FDNAMES`), named as
    /// `FileDescriptorName=` says; removes the variables, so that plugins never see them.
    /// Nothing when the variables are absent or meant for another process.
    static func fromSystemd(process: Int32) -> [NamedSocket] {
        defer { for name in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"] { Process.removeEnvironment(name) } }
        guard let count = Process.environment("LISTEN_FDS").flatMap(Int32.init), count > 0,
            Process.environment("LISTEN_PID").flatMap(Int32.init) == process
        else { return [] }
        let names = Process.environment("LISTEN_FDNAMES").map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
        return (0..<count).map { offset in
            let descriptor = 3 + offset
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            let name = Int(offset) < names.count && !names[Int(offset)].isEmpty ? names[Int(offset)] : "unknown"
            return NamedSocket(name: name, descriptor: descriptor, createdFile: nil)
        }
    }

    /// Opens a stream socket listening on `address`:
    ///
    /// - `unix:PATH` or an absolute `PATH`: a Unix socket file (a stale one, which nobody
    ///   listens on, is replaced);
    /// - `@NAME`: a Unix socket in the abstract namespace;
    /// - `HOST:PORT`, `[IPV6]:PORT`, `:PORT` or `PORT`: TCP (every address without a host).
    ///
    /// - Throws: ``SocketError`` naming the address and the system's reason.
    static func open(name: String, address: String) throws(SocketError) -> NamedSocket {
        var socket: NamedSocket
        if address.hasPrefix("unix:") || address.hasPrefix("/") || address.hasPrefix("@") {
            let path = address.hasPrefix("unix:") ? String(address.dropFirst(5)) : address
            socket = try openUnix(name: name, path: path, address: address)
        } else {
            socket = try openTCP(name: name, address: address)
        }
        socket.address = address
        return socket
    }

    /// Closes the socket and removes its file, if the host created one, unless
    /// `removingFile` is false (another host serves on it).
    func close(removingFile: Bool = true) {
        _ = Glibc.close(descriptor)
        if removingFile, let createdFile { unlink(createdFile) }
    }

    private static func openUnix(name: String, path: String, address: String) throws(SocketError) -> NamedSocket {
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw SocketError(address: address, reason: "a Unix socket path must be 1 to 107 bytes long")
        }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(address: address, errno: errno, doing: "create a socket") }
        func bindAndListen() -> Int32 {
            withUnsafePointer(to: &socketAddress) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
            } == 0 && listen(descriptor, SOMAXCONN) == 0 ? 0 : errno
        }
        var failure = bindAndListen()
        if failure == EADDRINUSE && !abstract && isStale(socketAddress, length) {
            unlink(path)
            failure = bindAndListen()
        }
        guard failure == 0 else {
            _ = Glibc.close(descriptor)
            throw SocketError(address: address, errno: failure)
        }
        return NamedSocket(name: name, descriptor: descriptor, createdFile: abstract ? nil : path)
    }

    /// Whether nobody listens on the Unix socket file at `address`: a host that ended
    /// without removing it left it.
    private static func isStale(_ address: sockaddr_un, _ length: socklen_t) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { _ = Glibc.close(probe) }
        var address = address
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, length) }
        }
        return connected != 0 && errno == ECONNREFUSED
    }

    /// The forms an address takes, as an error names them.
    static let addressForms = "unix:PATH, /PATH, @NAME, HOST:PORT, [IPV6]:PORT or :PORT"

    /// Whether `address` has one of the forms ``open(name:address:)`` reads, by its text alone:
    /// a command line that gives another is wrong before anything is opened.
    static func isWellFormed(_ address: String) -> Bool {
        if address.hasPrefix("unix:") { return address.count > 5 }
        if address.hasPrefix("/") || address.hasPrefix("@") { return address.count > 1 }
        return tcpParts(of: address) != nil
    }

    /// The host (none for every address) and the port of a TCP address; `nil` when it is none.
    private static func tcpParts(of address: String) -> (host: String?, port: UInt16)? {
        var host: String?
        var port = address
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            host = String(address[address.index(after: address.startIndex)..<close])
            port = String(address[address.index(after: close)...].drop { $0 == ":" })
        } else if let colon = address.lastIndex(of: ":") {
            host = colon == address.startIndex ? nil : String(address[..<colon])
            port = String(address[address.index(after: colon)...])
        }
        guard let number = UInt16(port), number > 0 else { return nil }
        return (host, number)
    }

    private static func openTCP(name: String, address: String) throws(SocketError) -> NamedSocket {
        guard let (host, number) = tcpParts(of: address) else {
            throw SocketError(address: address, reason: "expected " + addressForms)
        }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host, String(number), &hints, &found)
        guard lookup == 0, let first = found else {
            throw SocketError(address: address, reason: "cannot resolve it: \(String(cString: gai_strerror(lookup)))")
        }
        defer { freeaddrinfo(found) }
        var failure = EADDRNOTAVAIL
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            let descriptor = socket(current.pointee.ai_family, current.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else {
                failure = errno
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if bind(descriptor, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0, listen(descriptor, SOMAXCONN) == 0 {
                return NamedSocket(name: name, descriptor: descriptor, createdFile: nil)
            }
            failure = errno
            _ = Glibc.close(descriptor)
        }
        throw SocketError(address: address, errno: failure)
    }
}

/// A socket the host was asked to listen on cannot be opened.
struct SocketError: Error, Equatable, CustomStringConvertible {
    let address: String
    let reason: String

    init(address: String, reason: String) {
        self.address = address
        self.reason = reason
    }

    init(address: String, errno code: Int32, doing what: String) {
        self.init(address: address, reason: "cannot \(what): \(String(cString: strerror(code))) (errno: \(code))")
    }

    /// Listening itself failed, for the system's reason.
    init(address: String, errno code: Int32) {
        self.init(address: address, reason: "\(String(cString: strerror(code))) (errno: \(code))")
    }

    var description: String { "cannot listen on \(address): \(reason)" }
}
