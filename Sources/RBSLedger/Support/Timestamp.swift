import Foundation
import RBSMoney

/// UTC instants with millisecond precision and their one ISO 8601 text form, `2025-03-01T09:30:00.250Z`.
///
/// Written by hand (days-from-civil arithmetic) so the text never depends on a locale, a calendar
/// setting or a formatter's version.
public enum Timestamp {
    /// Milliseconds since 1970-01-01T00:00:00Z, rounded down.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The instant `milliseconds` after 1970-01-01T00:00:00Z (what the ledger stores in its `…_ms` columns).
    public static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` for years 0000–9999.
    public static func format(milliseconds ms: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(milliseconds: ms, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The UTF-8 of ``format(milliseconds:)`` appended to `out`, digit by digit: the canonical encoding writes it
    /// straight into a document's bytes, on the signing workers of group commit, where the text joined from
    /// padded parts cost a fifth of encoding a document.
    static func append(milliseconds ms: Int64, to out: inout [UInt8]) {
        let (days, msOfDay) = floorDivide(ms, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        func digits(_ value: Int64, _ width: Int, then separator: Unicode.Scalar) {
            // Exactly `width` digits for a value that has at most that many; any other (a year beyond 9999 or
            // before 0) as ``pad(_:_:)`` writes it.
            if value >= 0 && value < powersOfTen[width] {
                var divisor = powersOfTen[width - 1], rest = value
                for _ in 0..<width {
                    out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor))
                    rest %= divisor
                    divisor /= 10
                }
            } else {
                out.append(contentsOf: pad(value, width).utf8)
            }
            out.append(UInt8(ascii: separator))
        }
        digits(year, 4, then: "-")
        digits(month, 2, then: "-")
        digits(day, 2, then: "T")
        digits(msOfDay / 3_600_000, 2, then: ":")
        digits(msOfDay / 60_000 % 60, 2, then: ":")
        digits(msOfDay / 1000 % 60, 2, then: ".")
        digits(msOfDay % 1000, 3, then: "Z")
    }

    private static let powersOfTen: [Int64] = [1, 10, 100, 1000, 10000]

    /// The milliseconds of text in exactly the form `format` writes, or `nil`.
    public static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count == 24, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), b[19] == UInt8(ascii: "."), b[23] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for i in range {
                guard b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(b[i] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              let milli = number(20..<23), (1...12).contains(month), (1...31).contains(day),
              hour < 24, minute < 60, second < 60
        else { return nil }
        let days = self.days(fromCivil: year, month, day)
        let ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli
        // Rejects dates such as 02-30 that do not exist.
        return format(milliseconds: ms) == text ? ms : nil
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    /// Howard Hinnant's civil_from_days (the money module's calendar arithmetic, in the ledger's Int64).
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let (year, month, day) = CalendarDay.civil(fromDays: Int(days))
        return (Int64(year), Int64(month), Int64(day))
    }

    /// Howard Hinnant's days_from_civil.
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        Int64(CalendarDay.days(fromCivil: Int(year), Int(month), Int(day)))
    }
}
