#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts a program as a child that lives on its own: the supervisor's way to start the
/// plugin-host binary now installed as a new host (``NewHost``). Unlike a worker, which the
/// supervisor forks, the child runs a new image from its first instruction.
enum SpawnedProgram {
    /// Starts the file at `path` with `arguments` and `environment`; `passed` is open in it
    /// as descriptor `target`, and no other descriptor of this process but the standard
    /// three. It starts with no signal blocked and every signal's action the default.
    ///
    /// - Returns: Its process.
    /// - Throws: ``SystemError`` when it cannot be started.
    static func start(_ path: String, arguments: [String], environment: [String: String],
                      passing passed: Int32, as target: Int32) throws(SystemError) -> ProcessID {
        // dup2 onto itself would keep close-on-exec set: pass a copy under another number.
        let copy = passed == target ? fcntl(passed, F_DUPFD_CLOEXEC, target + 1) : -1
        defer { if copy >= 0 { _ = close(copy) } }
        let passed = copy >= 0 ? copy : passed
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, passed, target)
        // Whatever else is open here (sockets, workers' channels, plugins' leftovers) stays
        // here: what the child needs, it is sent.
        let open = ((try? directoryEntries(at: "/proc/self/fd")) ?? []).compactMap(Int32.init)
        for descriptor in open where descriptor > 2 && descriptor != target && descriptor != passed {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        if passed != target { posix_spawn_file_actions_addclose(&actions, passed) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var every = sigset_t()
        sigfillset(&every)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for entry in envp { free(entry) } }
        var process: pid_t = 0
        let result = posix_spawn(&process, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw SystemError("start", path: path, code: result) }
        return ProcessID(rawValue: process)
    }
}
