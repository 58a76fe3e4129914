#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// Turns signals into bytes on a pipe, so that a loop waiting in `poll` wakes for them too
/// (the self-pipe technique): the handler only `write`s the signal's number.
enum SignalPipe {
    /// Installs handlers for `signals` that write each arrival to a new pipe, and ignores
    /// SIGPIPE. Call once.
    ///
    /// - Returns: The read end, to poll and then read with ``received(on:)``.
    /// - Throws: ``SystemError`` when the pipe cannot be made.
    static func install(for signals: [Int32]) throws(SystemError) -> Int32 {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SystemError("create the signal pipe") }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        signalPipeWriteEnd = ends[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            var byte = UInt8(truncatingIfNeeded: signal)
            let saved = errno
            _ = write(signalPipeWriteEnd, &byte, 1)
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigfillset(&action.sa_mask)
        for signal in signals { _ = sigaction(signal, &action, nil) }
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        _ = sigaction(SIGPIPE, &ignore, nil)
        return ends[0]
    }

    /// The signals that arrived since the last call, in order of arrival.
    static func received(on readEnd: Int32) -> [Int32] {
        var signals: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(readEnd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return signals }
            signals += buffer[..<count].map { Int32($0) }
        }
    }

    /// Closes both ends and restores the default action of `signals`: for a forked child
    /// that must not inherit the parent's handling.
    static func uninstall(readEnd: Int32, signals: [Int32]) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        for signal in signals + [SIGPIPE] { _ = sigaction(signal, &action, nil) }
        close(readEnd)
        close(signalPipeWriteEnd)
    }
}

/// The write end of the signal pipe, read by the handler.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Waiting for file descriptors with `poll(2)`.
enum Poll {
    /// What to wait for on one descriptor.
    struct Interest {
        let descriptor: Int32
        /// Wait until it can be written to, rather than read from.
        let writing: Bool
    }

    /// Waits until one of `interests` is ready, or `timeout` nanoseconds pass (`nil`:
    /// without limit), or a signal arrives.
    ///
    /// - Returns: For each interest, whether it is ready (or in error, so that the caller's
    ///   next read or write reports it).
    static func wait(for interests: [Interest], timeout: Int64?) -> [Bool] {
        var descriptors = interests.map { pollfd(fd: $0.descriptor, events: Int16($0.writing ? POLLOUT : POLLIN), revents: 0) }
        let milliseconds: Int32 = timeout.map { Int32(clamping: ($0 + 999_999) / 1_000_000) } ?? -1
        let result = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        guard result > 0 else { return interests.map { _ in false } }
        return descriptors.map { $0.revents != 0 }
    }
}

/// Writes on one descriptor that must not block the caller for long: at most one pipe
/// buffer at a time, after ``Poll`` said it is writable.
enum DescriptorWriter {
    /// Writes up to a pipe buffer's worth of `bytes` from `offset`.
    ///
    /// - Returns: How many bytes were written; `nil` when the descriptor is broken (closed
    ///   reader, bad descriptor), so that the rest should be dropped.
    static func writeSome(_ bytes: [UInt8], from offset: Int, to descriptor: Int32) -> Int? {
        let count = min(bytes.count - offset, Int(PIPE_BUF))
        guard count > 0 else { return 0 }
        while true {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, count) }
            if written >= 0 { return written }
            if errno == EINTR { continue }
            if errno == EAGAIN { return 0 }
            return nil
        }
    }
}
