#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("plugin-host runs on Linux: it needs Glibc or Musl")
#endif

/// The process's standard output and error, flushed after each write so that the report
/// and what plugins print appear in the order they happen.
enum StandardStreams {
    /// Writes `text` to standard output.
    static func writeToOutput(_ text: String) {
        send(text, to: STDOUT_FILENO)
    }

    /// Writes `text` to standard error.
    static func writeToError(_ text: String) {
        send(text, to: STDERR_FILENO)
    }

    /// Sends everything written to standard output to standard error from now on, and
    /// returns a descriptor still connected to the original standard output.
    ///
    /// `--json` uses it so that whatever plugins print cannot corrupt the JSON document.
    static func divertOutputToError() -> Int32? {
        fflush(nil)
        let original = dup(STDOUT_FILENO)
        guard original >= 0, dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else { return nil }
        _ = fcntl(original, F_SETFD, FD_CLOEXEC)
        return original
    }

    /// Writes `text` in full to `descriptor`, after whatever C's buffered streams hold
    /// (a plugin's `print`, for example).
    static func send(_ text: String, to descriptor: Int32) {
        fflush(nil)
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
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

    /// Ends the process with `status`, flushing standard output first.
    static func exit(_ status: Int32) -> Never {
        fflush(nil)
        Glibc.exit(status)
    }
}
