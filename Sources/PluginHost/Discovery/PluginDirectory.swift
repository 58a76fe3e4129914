#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Finds the plugins in a directory and reads their manifests, without loading any.
struct PluginDirectory {
    /// The directory as the operator named it.
    let path: String

    /// What a scan found: plugins whose manifests could be read, and problems with the
    /// other `.so` files (or with the directory itself).
    struct Scan: Equatable {
        var candidates: [PluginCandidate] = []
        var problems: [Problem] = []
    }

    /// Reads the manifest of every `*.so` file in the directory, in name order. Other
    /// files are ignored.
    func scan() -> Scan {
        var scan = Scan()
        let names: [String]
        do {
            names = try directoryEntries(at: path)
        } catch {
            scan.problems.append(Problem(
                .directoryUnreadable, file: path,
                "cannot open plugin directory \(path): \(error.reason) (errno: \(error.code)); check --dir"))
            return scan
        }
        for name in names where name.hasSuffix(".so") {
            let file = self.file(named: name)
            do {
                scan.candidates.append(PluginCandidate(file: file, manifest: try ManifestReader.manifest(at: file)))
            } catch {
                scan.problems.append(Self.problem(error, file: file))
            }
        }
        return scan
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
