/// The writes of the record of what the host proved (``BuildRecord``), as the machine asks for
/// them and the driver finishes them: a write is asked for when what the record keeps changed. The driver writes in a process of its own, so that a
/// state directory on a disk that stalls (a frozen or hung file system) stalls nothing the
/// supervisor does: no deadline, no watchdog ping, no answer waits for it. This part knows
/// which writes are unfinished and since when, says once when they stall and once when they
/// finish again, and stops asking once a write failed: the host then runs as it would without
/// a state directory, having said so once.
///
/// Writes are numbered as they are asked for; a write finished keeps every record asked for
/// before it (the driver writes the newest one it has, never an older one after it).
struct RecordWrites: Equatable, Sendable {
    /// A write asked for and not finished: its number, and when it was asked for.
    private struct Unfinished: Equatable, Sendable {
        let number: Int
        let since: MonotonicInstant
    }

    /// The record as last asked to be kept, and the ledger's count of changes then.
    private struct Kept: Equatable, Sendable {
        let changes: Int
        let record: BuildRecord
    }

    /// The record as last asked to be kept.
    private var kept: Kept
    /// The unfinished writes, the oldest first.
    private var unfinished: [Unfinished] = []
    private var asked = 0
    /// Since when the writes stalled, once that was said.
    private var stalledSince: MonotonicInstant?
    /// Whether a write failed: the record is not kept from then on.
    private(set) var unwritable = false

    /// The writes of a host that read `record` from disk, its ledger's count of changes then
    /// `changes`: it is not written again until what it keeps changes.
    init(kept record: BuildRecord, changes: Int) {
        kept = Kept(changes: changes, record: record)
    }

    /// The ledger counts `changes` changes to what the record keeps, at `now`: when they moved
    /// and the record it keeps differs from the one last asked for, a write of it is asked for
    /// (`record` is read only then). Once a write failed, none is.
    ///
    /// - Returns: The write to ask the driver for, if any.
    mutating func keep(_ record: () -> BuildRecord, changes: Int, at now: MonotonicInstant) -> SupervisionAction? {
        guard changes != kept.changes, !unwritable else { return nil }
        let newer = record()
        defer { kept = Kept(changes: changes, record: newer) }
        guard newer != kept.record else { return nil }
        asked += 1
        unfinished.append(Unfinished(number: asked, since: now))
        return .keepRecord(newer, number: asked)
    }

    /// The driver finished write `number` at `now`: it kept the record, or it failed and says
    /// why.
    ///
    /// - Returns: What to tell the operator: the first failure, or that the writes that
    ///   stalled are done.
    mutating func finished(_ number: Int, failure: String?, at now: MonotonicInstant) -> [RecordWriteNews] {
        unfinished.removeAll { $0.number <= number }
        var news: [RecordWriteNews] = []
        if let failure, !unwritable {
            unwritable = true
            unfinished = []
            news.append(.unwritable(failure))
        }
        if let since = stalledSince, unfinished.isEmpty {
            stalledSince = nil
            if failure == nil { news.append(.writtenAgain(after: now - since)) }
        }
        return news
    }

    /// When the oldest unfinished write counts as stalled, after `limit`, unless that was said.
    func nextDeadline(limit: Duration) -> MonotonicInstant? {
        guard stalledSince == nil, let oldest = unfinished.first else { return nil }
        return oldest.since + limit
    }

    /// Whether, at `now`, a write has been unfinished for `limit` or longer.
    ///
    /// - Returns: That the writes stall, once for each time they do.
    mutating func check(at now: MonotonicInstant, limit: Duration) -> [RecordWriteNews] {
        guard stalledSince == nil, let oldest = unfinished.first, now - oldest.since >= limit else { return [] }
        stalledSince = oldest.since
        return [.stalled(longerThan: limit)]
    }

    /// Since when the writes stall, while they do and that was said.
    var stalled: MonotonicInstant? { stalledSince }
}

/// What the machine tells of the record's writes.
enum RecordWriteNews: Equatable, Sendable {
    /// A write has been unfinished longer than this: the state directory does not answer.
    case stalled(longerThan: Duration)
    /// The writes that stalled finished, after this long.
    case writtenAgain(after: Duration)
    /// A write failed, with the driver's reason: the host keeps no record from now on.
    case unwritable(String)
}
