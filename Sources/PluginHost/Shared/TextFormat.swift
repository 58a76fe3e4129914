/// Durations and times as operators read them.
enum TextFormat {
    /// A duration in seconds, as an operator writes it: `30 s`, `0.5 s`.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard attoseconds != 0 else { return "\(seconds) s" }
        return "\(Double(seconds) + Double(attoseconds) / 1e18) s"
    }

    /// A number of nanoseconds in seconds, as ``seconds(_:)`` writes them.
    static func seconds(nanoseconds: Int64) -> String {
        seconds(.nanoseconds(nanoseconds))
    }
}
