/// Where the host's own text goes: standard output and error.
///
/// The commands that load no plugin write straight to the process's descriptors. The
/// worker of a run hands its text to the supervisor, which writes it: no plugin can then
/// redirect, close or reuse the descriptors it lands on.
struct Console: Sendable {
    enum Stream: Sendable {
        case output
        case error
    }

    private let sink: @Sendable (String, Stream) -> Void

    init(_ sink: @escaping @Sendable (String, Stream) -> Void) {
        self.sink = sink
    }

    /// Writes straight to descriptors 1 and 2.
    static let direct = Console { text, stream in
        StandardStreams.write(text, to: stream == .output ? 1 : 2)
    }

    /// Writes `text` to `stream`.
    func write(_ text: String, to stream: Stream) {
        sink(text, stream)
    }
}
