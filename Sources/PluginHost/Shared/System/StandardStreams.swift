#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// The process's standard output and error, written with `write(2)`: the host's own text
/// never goes through C's buffered streams, whose locks plugin code may hold.
enum StandardStreams {
    /// Writes `text` in full to `descriptor`, after flushing what plugins left in C's
    /// buffered streams (only when nobody holds their locks), so that output appears in the
    /// order it was produced. Gives up on a descriptor that fails.
    static func write(_ text: String, to descriptor: Int32) {
        flushIfUnlocked()
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = SystemCall.retryingOnInterrupt { bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } }
            guard written >= 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Flushes C's standard output and error when no thread holds their locks; never waits.
    ///
    /// - Returns: Whether both were free and flushed.
    @discardableResult
    static func flushIfUnlocked() -> Bool {
        var flushed = true
        for variable in [standardOutputVariable, standardErrorVariable] {
            guard let stream = variable?.load(as: UnsafeMutablePointer<FILE>?.self), ftrylockfile(stream) == 0 else {
                flushed = false
                continue
            }
            fflush(stream)
            funlockfile(stream)
        }
        return flushed
    }

    /// Where C keeps its `stdout` and `stderr` pointers, found once (the variables are
    /// mutable C globals, which Swift 6 does not let code read directly).
    nonisolated(unsafe) private static let standardOutputVariable = dlsym(nil, "stdout").map(UnsafeRawPointer.init)
    nonisolated(unsafe) private static let standardErrorVariable = dlsym(nil, "stderr").map(UnsafeRawPointer.init)

    /// Makes C's standard output line-buffered: what plugins `print` reaches the reader
    /// line by line, as it is written, even when standard output is a pipe or a file (as
    /// under systemd), where C buffers it in blocks otherwise.
    static func makeOutputLineBuffered() {
        guard let stream = standardOutputVariable?.load(as: UnsafeMutablePointer<FILE>?.self) else { return }
        setvbuf(stream, nil, _IOLBF, 0)
    }

    /// Sends everything written to standard output to standard error from now on.
    ///
    /// `--json` uses it in the worker, so that whatever plugins print cannot corrupt the
    /// JSON document, which the supervisor writes to its own standard output.
    static func divertOutputToError() {
        flushIfUnlocked()
        _ = dup2(STDERR_FILENO, STDOUT_FILENO)
    }

    /// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed, so that no file
    /// opened later takes their number and receives what is printed.
    ///
    /// - Returns: The descriptors that were closed.
    @discardableResult
    static func reopenClosed() -> [Int32] {
        (0...2).filter { descriptor in
            guard fcntl(descriptor, F_GETFD) < 0, errno == EBADF else { return false }
            let opened = open("/dev/null", O_RDWR)
            if opened >= 0 && opened != descriptor {
                _ = dup2(opened, descriptor)
                close(opened)
            }
            return true
        }
    }
}

/// The running program.
enum Process {
    /// The path of the running executable, from `/proc/self/exe`.
    static var executablePath: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The value of the environment variable `name`, if set.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Removes the environment variable `name`, for this process and those it starts.
    static func removeEnvironment(_ name: String) {
        unsetenv(name)
    }

    /// Every environment variable, as the process has them now.
    static var environment: [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }

    /// The current working directory.
    static var workingDirectory: String? {
        guard let path = getcwd(nil, 0) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }
}
