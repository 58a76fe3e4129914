/// Durations and times as operators read them.
enum TextFormat {
    /// A duration in seconds, as an operator writes it: `30 s`, `0.5 s`.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard attoseconds != 0 else { return "\(seconds) s" }
        return "\(Double(seconds) + Double(attoseconds) / 1e18) s"
    }

    /// A duration measured, not chosen, to the tenth of a second: `12.3 s`.
    static func measuredSeconds(_ duration: Duration) -> String {
        let tenths = Int64((Double(duration.components.seconds) * 10 + Double(duration.components.attoseconds) / 1e17).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    /// A number of nanoseconds in seconds, as ``seconds(_:)`` writes them.
    static func seconds(nanoseconds: Int64) -> String {
        seconds(.nanoseconds(nanoseconds))
    }

    /// A duration as milliseconds with two decimals below 10 ms, whole above: `0.42 ms`,
    /// `125 ms`; rounded half up, and a negative duration as `0.00 ms`.
    ///
    /// Worked out in whole numbers: a report of a thousand plugins formats two thousand.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return "0.00 ms" }
        // 10^15 attoseconds to the millisecond, 10^13 to the hundredth.
        guard seconds == 0, attoseconds < 10_000_000_000_000_000 else {
            let milliseconds = seconds * 1000 + (attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000
            return String(milliseconds) + " ms"
        }
        let hundredths = Int((attoseconds + 5_000_000_000_000) / 10_000_000_000_000)
        let fraction = hundredths % 100
        return String(hundredths / 100) + (fraction < 10 ? ".0" : ".") + String(fraction) + " ms"
    }

    /// Seconds since the Unix epoch as `2026-11-21T12:01:33Z`.
    static func utc(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = total - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    /// `2026-11-21T12:01:33Z` as seconds since the Unix epoch; `nil` for any other text.
    static func secondsSinceEpoch(utc text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        // Days since 1970-01-01 from the civil date (Howard Hinnant's algorithm, the inverse of `utc`).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second)
    }
}
