#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs a program of the toolchain (the compiler, the API digester) and waits for it, for
/// the commands that build plugins. Never used while plugins run.
enum ChildProgram {
    /// Runs `program`, looked up in `PATH` unless it holds a `/`, with `arguments`; its
    /// standard output and error go to the file at `outputPath`.
    ///
    /// - Returns: How it ended.
    /// - Throws: ``SystemError`` when it cannot be started (ENOENT: not found).
    static func run(_ program: String, _ arguments: [String], outputTo outputPath: String) throws(SystemError) -> Termination {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var process: pid_t = 0
        let result = posix_spawnp(&process, program, &actions, nil, argv, environ)
        guard result == 0 else { throw SystemError("run", path: program, code: result) }
        var status: Int32 = 0
        guard SystemCall.retryingOnInterrupt({ waitpid(process, &status, 0) }) == process else {
            throw SystemError("wait for", path: program)
        }
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(Signal(rawValue: signal))
    }
}
