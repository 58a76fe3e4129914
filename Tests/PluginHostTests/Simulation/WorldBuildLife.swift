/// A build's life as the world reads docs/operations.md's table ("A build's life"), written
/// from the document and sharing no code with the host's own: `history` names each build the
/// record keeps by one of these, and the world checks, at every write of the record, that each
/// build moved only as the table says and is where the truth says it is.
enum WorldBuildLife: Hashable, CustomStringConvertible {
    /// The record does not name it: a new file, or a build forgotten.
    case unnamed
    case onTrial
    case permanent
    case kept
    case leftOut

    /// The life `history` names by `verdict`; `nil` for words the table does not have.
    init?(verdict: String) {
        switch verdict {
        case "on trial": self = .onTrial
        case "permanent": self = .permanent
        case "kept": self = .kept
        case "left out": self = .leftOut
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .unnamed: "not named"
        case .onTrial: "on trial"
        case .permanent: "permanent"
        case .kept: "kept"
        case .leftOut: "left out"
        }
    }

    /// Where the table lets a build go from here, row by row.
    ///
    /// | from | to | what causes it |
    /// | (a new file) | permanent | a generation serves it, not on trial |
    /// | (a new file), permanent, kept | on trial | an upgrade's generation takes over with it, replacing another build |
    /// | (a new file) | left out | a failure blamed on it before it served |
    /// | on trial | permanent, kept | its trial passes, or `accept`; a trial's build that stopped running passes behind the build that served last (kept) |
    /// | on trial | left out | a failure blamed on it, an unhealthy health check, or `rollback` |
    /// | on trial | on trial | the host stopped while it was on trial |
    /// | on trial | (forgotten) | an upgrade brings in another build of its plugin while it is on trial |
    /// | permanent, kept | left out | a failure blamed on it, or `rollback` away from it |
    /// | kept | permanent | `rollback --to` it, or the permanent build is left out |
    /// | permanent | kept | another build becomes permanent |
    /// | permanent, kept | (forgotten) | a fourth build with a copy kept becomes permanent: the oldest loses its copy |
    /// | left out | kept, permanent | `restart PLUGIN`, when the record keeps a copy of it |
    /// | left out | (forgotten) | `restart PLUGIN`, or its file changed, when no copy is kept |
    static let table: [WorldBuildLife: Set<WorldBuildLife>] = [
        .unnamed: [.permanent, .onTrial, .leftOut],
        .onTrial: [.permanent, .kept, .leftOut, .unnamed],
        .permanent: [.onTrial, .leftOut, .kept, .unnamed],
        .kept: [.onTrial, .leftOut, .permanent, .unnamed],
        .leftOut: [.kept, .permanent, .unnamed],
    ]

    /// Whether the table has a way from `self` to `life`.
    func mayMove(to life: WorldBuildLife) -> Bool {
        life == self || Self.table[self]?.contains(life) == true
    }
}
