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
    static func install(for signals: [Signal]) throws(SystemError) -> FileDescriptor {
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
        for signal in signals { _ = sigaction(signal.rawValue, &action, nil) }
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        _ = sigaction(SIGPIPE, &ignore, nil)
        return FileDescriptor(rawValue: ends[0])
    }

    /// The signals that arrived since the last call, in order of arrival.
    static func received(on readEnd: FileDescriptor) -> [Signal] {
        var signals: [Signal] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = SystemCall.retryingOnInterrupt { read(readEnd.rawValue, &buffer, buffer.count) }
            guard count > 0 else { return signals }
            signals += buffer[..<count].map { Signal(rawValue: Int32($0)) }
        }
    }

    /// Closes both ends and restores the default action of `signals`: for a forked child
    /// that must not inherit the parent's handling.
    static func uninstall(readEnd: FileDescriptor, signals: [Signal]) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        for signal in signals.map(\.rawValue) + [SIGPIPE] { _ = sigaction(signal, &action, nil) }
        readEnd.close()
        close(signalPipeWriteEnd)
    }
}

/// The write end of the signal pipe, read by the handler.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Waiting for file descriptors with `poll(2)`.
enum Poll {
    /// What to wait for on one descriptor.
    struct Interest {
        let descriptor: FileDescriptor
        /// Wait until it can be written to, rather than read from.
        let writing: Bool
    }

    /// Waits until one of `interests` is ready, or `timeout` passes (`nil`: without limit),
    /// or a signal arrives.
    ///
    /// - Returns: For each interest, whether it is ready (or in error, so that the caller's
    ///   next read or write reports it).
    static func wait(for interests: [Interest], timeout: Duration?) -> [Bool] {
        var descriptors = interests.map { pollfd(fd: $0.descriptor.rawValue, events: Int16($0.writing ? POLLOUT : POLLIN), revents: 0) }
        let milliseconds: Int32 = timeout.map { Int32(clamping: (max(0, $0.nanoseconds) + 999_999) / 1_000_000) } ?? -1
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
    static func writeSome(_ bytes: [UInt8], from offset: Int, to descriptor: FileDescriptor) -> Int? {
        let count = min(bytes.count - offset, Int(PIPE_BUF))
        guard count > 0 else { return 0 }
        let written = SystemCall.retryingOnInterrupt { bytes.withUnsafeBytes { write(descriptor.rawValue, $0.baseAddress! + offset, count) } }
        if written >= 0 { return written }
        return errno == EAGAIN ? 0 : nil
    }
}
