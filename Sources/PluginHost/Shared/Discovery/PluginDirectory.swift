/// Finds the plugins in a directory and reads their manifests, without loading any.
struct PluginDirectory {
    /// The directory as the operator named it, as reports name it.
    let path: String
    /// Which files and directories to trust.
    var trust = FileTrust()
    /// The directory as the host opens it: absolute, taken when the host started, so that
    /// plugin code that changes the working directory does not move it.
    let location: String

    /// - Parameter base: The working directory a relative `path` is taken from; `nil` for
    ///   the current one.
    init(path: String, trust: FileTrust = FileTrust(), base: String? = nil) {
        self.path = path
        self.trust = trust
        location = path.hasPrefix("/") || base == nil ? path : base! + "/" + path
    }

    /// What a scan found: plugins whose manifests could be read, and problems with the
    /// other `.so` files (or with the directory itself).
    struct Scan: Equatable {
        var candidates: [PluginCandidate] = []
        var problems: [Problem] = []
    }

    /// Reads the manifest of every `*.so` file in the directory, in name order. Other
    /// files are ignored; plugin files and a directory that ``FileTrust`` refuses are
    /// reported and not read.
    func scan() -> Scan {
        var scan = Scan()
        let names: [String]
        let resolvedDirectory: String
        do {
            let status = try FileStatus(path: location)
            if let problem = trust.problem(withDirectory: path, status: status) {
                scan.problems.append(Problem(.unsafeFile, file: path, "refusing plugin directory \(path): \(problem)"))
                return scan
            }
            resolvedDirectory = try resolvedPath(location)
            names = try directoryEntries(at: location)
        } catch {
            scan.problems.append(Problem(
                .directoryUnreadable, file: path,
                "cannot open plugin directory \(path): \(error.reason) (errno: \(error.code)); check --dir"))
            return scan
        }
        // Reading manifests is independent per file: spread it over the processors, then
        // merge in name order, so the result is the same as reading one file at a time.
        // A file an earlier scan read and that has not changed since is not read again.
        let files = names.filter { $0.hasSuffix(".so") }
        let cache = ManifestCache(directory: resolvedDirectory)
        let results = concurrentMap(files) { name in read(name, inResolvedDirectory: resolvedDirectory, cache: cache) }
        var entries: [String: ManifestCache.Entry] = [:]
        for (name, result) in zip(files, results) {
            switch result {
            case .success(let (candidate, entry)):
                scan.candidates.append(candidate)
                entries[name] = entry
            case .failure(let problem): scan.problems.append(problem)
            }
        }
        cache.save(entries)
        return scan
    }

    /// Reads the plugin file `name`, or takes what an earlier scan read from it when it has
    /// not changed since; the file's trust is checked afresh either way.
    private func read(
        _ name: String, inResolvedDirectory resolvedDirectory: String, cache: ManifestCache
    ) -> Result<(PluginCandidate, ManifestCache.Entry?), Problem> {
        let file = file(named: name)
        if !cache.entries.isEmpty, let status = try? FileStatus(linkAt: resolvedDirectory + "/" + name), status.kind == .regular,
            let entry = cache.entry(name, status), let manifest = try? PluginManifest(json: entry.stored) {
            if let problem = trust.problem(withFile: file, status: status) {
                return .failure(Problem(.unsafeFile, file: file, "refusing plugin file \(file): \(problem)"))
            }
            return .success((
                PluginCandidate(
                    file: file, path: resolvedDirectory + "/" + name, manifest: manifest, segments: entry.segments, needed: entry.needed,
                    status: status),
                entry))
        }
        return read(name, inResolvedDirectory: resolvedDirectory).map { candidate, plugin in
            (candidate, candidate.status.map { ManifestCache.Entry($0, plugin) })
        }
    }

    /// Opens, checks and reads the plugin file `name`.
    private func read(_ name: String, inResolvedDirectory resolvedDirectory: String) -> Result<(PluginCandidate, ManifestReader.Plugin), Problem> {
        let file = file(named: name)
        // The checks apply to the file opened, so it cannot be swapped between the check and
        // the read; a symbolic link is opened only once it is known to stay inside.
        let opened: ReadOnlyFile
        let status: FileStatus
        do {
            do {
                opened = try ReadOnlyFile(path: resolvedDirectory + "/" + name, followingLinks: false)
            } catch where error.isSymbolicLink {
                if let problem = trust.problem(withLink: resolvedDirectory + "/" + name, inResolvedDirectory: resolvedDirectory) {
                    return .failure(Problem(.unsafeFile, file: file, "refusing plugin file \(file): \(problem)"))
                }
                opened = try ReadOnlyFile(path: resolvedDirectory + "/" + name)
            }
            status = try opened.status()
        } catch {
            return .failure(Self.problem(.unreadable(error), file: file))
        }
        if let problem = trust.problem(withFile: file, status: status) {
            return .failure(Problem(.unsafeFile, file: file, "refusing plugin file \(file): \(problem)"))
        }
        do {
            let plugin = try ManifestReader.plugin(in: opened, size: UInt64(max(status.size, 0)))
            return .success((
                PluginCandidate(
                    file: file, path: resolvedDirectory + "/" + name, manifest: plugin.manifest, segments: plugin.segments,
                    needed: plugin.needed, status: status),
                plugin))
        } catch {
            return .failure(Self.problem(error, file: file))
        }
    }

    /// Reads the plugin file held open at `path` (a build that ran before, in place of one
    /// left out), named `file` in reports. Its trust was checked when it was first read.
    static func readHeldBuild(at path: String, shownAs file: String) -> Result<PluginCandidate, Problem> {
        do {
            let opened = try ReadOnlyFile(path: path)
            let status = try opened.status()
            let plugin = try ManifestReader.plugin(in: opened, size: UInt64(max(status.size, 0)))
            return .success(PluginCandidate(
                file: file, path: path, manifest: plugin.manifest, segments: plugin.segments, needed: plugin.needed, status: status))
        } catch let error as SystemError {
            return .failure(problem(.unreadable(error), file: file))
        } catch let error as ManifestError {
            return .failure(problem(error, file: file))
        } catch {
            return .failure(Problem(.unreadableFile, file: file, "\(file): \(error)"))
        }
    }

    /// The path of an entry of this directory.
    func file(named name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    private static func problem(_ error: ManifestError, file: String) -> Problem {
        let code: Problem.Code = switch error {
        case .unreadable: .unreadableFile
        case .notSharedObject: .notSharedObject
        case .missing: .missingManifest
        case .malformed: .malformedManifest
        }
        return Problem(code, file: file, "\(file): \(error)")
    }
}
