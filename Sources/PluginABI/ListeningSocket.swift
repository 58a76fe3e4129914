#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// A socket the host listens on, which a component serves: systemd's socket activation
/// (`ListenStream=` with `FileDescriptorName=NAME`), or `--listen NAME=ADDRESS`.
///
/// The host holds the socket for its whole life and hands it to every worker generation, so
/// connections wait in its backlog while one generation of plugins gives way to the next
/// (a restart, an upgrade): a client is never refused. ``descriptor`` is a duplicate that
/// belongs to the component: close it when its service stops. Its file status flags (such
/// as `O_NONBLOCK`) are shared with every duplicate; accept connections after `poll` says
/// one waits, and take `EAGAIN` as "none after all" (another generation took it).
public struct ListeningSocket: Sendable {
    /// The name it was given.
    public let name: String
    /// A duplicate of the host's descriptor, close-on-exec.
    public let descriptor: Int32
}

extension Bootstrapped {
    /// The names of the sockets the host listens on.
    public var listeningSocketNames: [String] { socketDescriptors.keys.sorted() }

    /// The socket the host listens on under `name`, as a descriptor of the component's own.
    ///
    /// - Throws: ``BootstrappingError`` with code `socketNotFound`, naming the sockets there
    ///   are, when there is none of that name; a ``ListeningSocketError`` when the
    ///   descriptor cannot be duplicated.
    public func listeningSocket(named name: String) throws -> ListeningSocket {
        guard let descriptor = socketDescriptors[name] else {
            let names = listeningSocketNames
            throw BootstrappingError(
                code: .socketNotFound, requestingPlugin: pluginName,
                advice: "no socket \"\(name)\"; the host listens on "
                    + (names.isEmpty ? "none" : names.map { "\"\($0)\"" }.joined(separator: ", "))
                    + ": give it one with --listen \(name)=ADDRESS, or FileDescriptorName=\(name) in a systemd .socket unit")
        }
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        guard duplicate >= 0 else { throw ListeningSocketError(name: name, code: errno) }
        return ListeningSocket(name: name, descriptor: duplicate)
    }
}

/// The host's socket could not be duplicated for a component.
public struct ListeningSocketError: Error, Sendable, CustomStringConvertible {
    /// The socket's name.
    public let name: String
    /// The value of `errno`.
    public let code: Int32

    public var description: String {
        "cannot obtain the socket \"\(name)\": \(String(cString: strerror(code))) (errno: \(code))"
    }
}
