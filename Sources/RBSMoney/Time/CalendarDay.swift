import Foundation

/// A day of the proleptic Gregorian calendar, years 0001–9999: the one reader of day text in the host. A person's
/// text (a form's date atom, `--from`/`--to`, the web client's period) is `ДД.ММ.ГГГГ` or `YYYY-MM-DD`; wire formats
/// and imported files (a plugin's DATE value, ED807's `EDDate`, the Bank of Russia's `Date`) have exactly one
/// shape. Digits are ASCII only (`Character.isNumber` also takes other scripts' digits), and a day that does not
/// exist (31.02.2026) is refused, never moved to another.
public struct CalendarDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Which ways of writing a day a reader takes.
    public enum Shapes: Sendable {
        /// `YYYY-MM-DD` (ISO 8601's calendar date).
        case iso
        /// `ДД.ММ.ГГГГ` (as Russian documents write it).
        case dotted
        /// Either: what a person may type.
        case either
    }

    /// The day `year`-`month`-`day`, or why there is no such day.
    public init(year: Int, month: Int, day: Int) throws(CalendarDayError) {
        let text = Self.iso(year: year, month: month, day: day)
        guard (1...9999).contains(year) else { throw .noSuchYear(text: text, year: year) }
        guard (1...12).contains(month) else { throw .noSuchMonth(text: text, month: month) }
        guard (1...Self.days(inMonth: month, of: year)).contains(day) else {
            throw .noSuchDay(text: text, day: day, month: month, year: year)
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `text` names in one of `shapes`.
    public static func parse(_ text: String, _ shapes: Shapes = .either) throws(CalendarDayError) -> CalendarDay {
        guard let fields = fields(of: text, shapes) else { throw .notADay(text: text, shapes: shapes) }
        do throws(CalendarDayError) {
            return try CalendarDay(year: fields.year, month: fields.month, day: fields.day)
        } catch {
            throw error.naming(text)  // as it was typed, not as the calendar writes it
        }
    }

    /// The numbers `text` writes in one of `shapes`, not yet checked against the calendar (a form reports a day
    /// that does not exist in its own words), or nil when `text` has neither shape.
    public static func fields(of text: String, _ shapes: Shapes = .either) -> (year: Int, month: Int, day: Int)? {
        if shapes != .dotted, let parts = numbers(text, separator: "-", widths: [4, 2, 2]) {
            return (parts[0], parts[1], parts[2])
        }
        if shapes != .iso, let parts = numbers(text, separator: ".", widths: [2, 2, 4]) {
            return (parts[2], parts[1], parts[0])
        }
        return nil
    }

    /// `YYYY-MM-DD`.
    public var iso: String { Self.iso(year: year, month: month, day: day) }
    /// `ДД.ММ.ГГГГ`.
    public var dotted: String { "\(Self.padded(day, 2)).\(Self.padded(month, 2)).\(Self.padded(year, 4))" }
    public var description: String { iso }

    /// The day `count` days later (earlier when negative), or nil outside years 0001–9999.
    public func adding(days count: Int) -> CalendarDay? {
        let (year, month, day) = Self.civil(fromDays: daysSinceEpoch + count)
        return try? CalendarDay(year: year, month: month, day: day)
    }

    /// The first moment of the day in `timeZone`.
    public func midnight(in timeZone: TimeZone) -> Date? { firstMoment(daysLater: 0, in: timeZone) }

    /// The moment the day ends in `timeZone`: the next day's first moment, also after 31.12.9999 (a period "to" the last
    /// day there is includes it, where ``adding(days:)`` has no day after it).
    public func end(in timeZone: TimeZone) -> Date? { firstMoment(daysLater: 1, in: timeZone) }

    /// The first moment of the day `daysLater` days after this one, by the calendar (which goes on past year 9999).
    private func firstMoment(daysLater: Int, in timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: DateComponents(year: year, month: month, day: day + daysLater))
    }

    /// The day `date` falls on in `timeZone`.
    public static func containing(_ date: Date, in timeZone: TimeZone) -> CalendarDay? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        guard let year = parts.year, let month = parts.month, let day = parts.day else { return nil }
        return try? CalendarDay(year: year, month: month, day: day)
    }

    public static func < (left: CalendarDay, right: CalendarDay) -> Bool {
        (left.year, left.month, left.day) < (right.year, right.month, right.day)
    }

    // MARK: - Arithmetic and text

    static func days(inMonth month: Int, of year: Int) -> Int {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days since 1970-01-01.
    var daysSinceEpoch: Int { Self.days(fromCivil: year, month, day) }

    /// Howard Hinnant's days_from_civil: days since 1970-01-01 of any year, month and day, exact integer arithmetic
    /// with no time zone involved (the ledger's timestamps are written with it too).
    package static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Howard Hinnant's civil_from_days: the year, month and day `days` after 1970-01-01.
    package static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `YYYY-MM-DD` of any three numbers (a message can name a day that does not exist as it was typed).
    public static func iso(year: Int, month: Int, day: Int) -> String {
        "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    private static func padded(_ number: Int, _ width: Int) -> String {
        if number < 0 { return "-" + padded(-number, width - 1) }
        let digits = String(number)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// The three numbers of `text` split at `separator`, each exactly its width in ASCII digits.
    private static func numbers(_ text: String, separator: Character, widths: [Int]) -> [Int]? {
        let parts = text.split(separator: separator, omittingEmptySubsequences: false)
        guard parts.count == widths.count else { return nil }
        var numbers: [Int] = []
        for (part, width) in zip(parts, widths) {
            guard part.utf8.count == width, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(part) else {
                return nil
            }
            numbers.append(number)
        }
        return numbers
    }
}

/// Why text does not name a day.
public enum CalendarDayError: Error, Equatable, CustomStringConvertible {
    /// Neither shape the reader takes.
    case notADay(text: String, shapes: CalendarDay.Shapes)
    case noSuchYear(text: String, year: Int)
    case noSuchMonth(text: String, month: Int)
    case noSuchDay(text: String, day: Int, month: Int, year: Int)

    /// The reason alone, for messages that name the text themselves.
    public var reason: String {
        switch self {
        case .notADay(_, let shapes):
            switch shapes {
            case .iso: "not in the form YYYY-MM-DD"
            case .dotted: "not in the form ДД.ММ.ГГГГ"
            case .either: "not in the form ДД.ММ.ГГГГ or YYYY-MM-DD"
            }
        case .noSuchYear(_, let year): year == 0 ? "year 0000 does not exist" : "year \(year) is outside 0001–9999"
        case .noSuchMonth(_, let month): "month \(month) does not exist"
        case .noSuchDay(_, let day, let month, let year): "day \(day) does not exist in month \(month) of \(year)"
        }
    }

    public var text: String {
        switch self {
        case .notADay(let text, _), .noSuchYear(let text, _), .noSuchMonth(let text, _), .noSuchDay(let text, _, _, _): text
        }
    }

    public var description: String { "'\(text)' is not a day: \(reason)" }

    /// The same reason about `text`.
    func naming(_ text: String) -> CalendarDayError {
        switch self {
        case .notADay(_, let shapes): .notADay(text: text, shapes: shapes)
        case .noSuchYear(_, let year): .noSuchYear(text: text, year: year)
        case .noSuchMonth(_, let month): .noSuchMonth(text: text, month: month)
        case .noSuchDay(_, let day, let month, let year): .noSuchDay(text: text, day: day, month: month, year: year)
        }
    }
}
