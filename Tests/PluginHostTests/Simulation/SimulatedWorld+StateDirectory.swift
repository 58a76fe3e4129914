#if !STANDALONE_SIMULATOR
@testable import PluginHost
#endif

/// The world's driver of the state directory (``WorldStateDirectory``): the writer copies the
/// builds each record it starts to write names, and the machine hears each write's end
/// (``SupervisionEvent/recordKept(number:failure:)``). A state directory that cannot be
/// written fails the first write.
extension SimulatedWorld {
    /// The machine asked to keep `record`, write `number`.
    mutating func keep(_ record: BuildRecord, number: Int) {
        guard setup.keepsRecord else {
            deliver(.recordKept(number: number, failure: "create /state/record-key: Permission denied (errno: 13)"))
            return
        }
        if stateDirectory.ask(record, number: number, at: now) { keepCopies(of: record) }
    }

    /// The write under way finishes, if its time has come: the next one waiting starts, and
    /// the machine hears of it.
    mutating func finishRecordWrite() {
        guard let (finished, started) = stateDirectory.finishDue(at: now) else { return }
        if let started { keepCopies(of: started) }
        deliver(.recordKept(number: finished, failure: nil))
    }

    /// The supervisor is gone (killed, or it ended): what it handed over to its writer is
    /// written all the same, and the next start waits for it.
    mutating func settleRecordWrites() {
        if let written = stateDirectory.settle() { keepCopies(of: written) }
    }

    /// The host said that its record's writes stall, once the oldest has waited
    /// `--record-stall`.
    mutating func checkRecordWrites() {
        guard setup.keepsRecord, exit == nil, let wrong = stateDirectory.unsaidStall(at: now, limit: setup.machine.recordStall) else { return }
        violate(wrong)
    }

    /// What the host says of its record's writes agrees with the world's disk.
    mutating func checkRecordNews(_ news: RecordWriteNews) {
        for wrong in stateDirectory.heard(news, at: now, writable: setup.keepsRecord, limit: setup.machine.recordStall) { violate(wrong) }
    }
}
