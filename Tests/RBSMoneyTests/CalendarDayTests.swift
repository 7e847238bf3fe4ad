import Foundation
import RBSMoney
import Testing

/// The one reader of day text: a person's two ways of writing a day, the wire's one, and days that do not exist.
@Suite struct CalendarDayTests {
    @Test("a person may write ДД.ММ.ГГГГ or YYYY-MM-DD; both name the same day")
    func twoShapes() throws {
        let dotted = try CalendarDay.parse("29.02.2024")
        let iso = try CalendarDay.parse("2024-02-29")
        #expect(dotted == iso)
        #expect(dotted.iso == "2024-02-29")
        #expect(dotted.dotted == "29.02.2024")
    }

    @Test("a wire or file shape takes only its own way of writing")
    func oneShape() {
        #expect(throws: CalendarDayError.notADay(text: "25.11.2026", shapes: .iso)) { try CalendarDay.parse("25.11.2026", .iso) }
        #expect(throws: CalendarDayError.notADay(text: "2026-11-25", shapes: .dotted)) { try CalendarDay.parse("2026-11-25", .dotted) }
    }

    @Test("a day that does not exist is refused with its reason, never moved to another", arguments: [
        ("31.02.2026", "day 31 does not exist in month 2 of 2026"),
        ("2025-02-29", "day 29 does not exist in month 2 of 2025"),
        ("1900-02-29", "day 29 does not exist in month 2 of 1900"),
        ("2026-13-01", "month 13 does not exist"),
        ("00.01.2026", "day 0 does not exist in month 1 of 2026"),
        ("0000-01-01", "year 0000 does not exist"),
    ])
    func noSuchDay(text: String, reason: String) {
        do {
            let day = try CalendarDay.parse(text)
            Issue.record("\(text) was read as \(day)")
        } catch {
            #expect(error.reason == reason)
            #expect(error.description == "'\(text)' is not a day: \(reason)")
        }
    }

    @Test("only ASCII digits in exactly their widths are a day", arguments: [
        "2026-1-05", "2026-01-5", "26-01-05", "1.01.2026", "01.01.26", " 2026-01-05", "2026-01-05 ", "2026/01/05",
        "2026-01-05T00:00", "٢٠٢٦-٠١-٠٥", "２０２６-01-05", "2026-0½-05", "", "--", "+026-01-05", "-026-01-05",
    ])
    func notADay(text: String) {
        #expect(throws: CalendarDayError.notADay(text: text, shapes: .either)) { try CalendarDay.parse(text) }
        #expect(CalendarDay.fields(of: text) == nil)
    }

    @Test("the shape alone is read by fields(of:), so a form can name a day that does not exist in its own words")
    func fieldsOnly() throws {
        let fields = try #require(CalendarDay.fields(of: "31.02.2026"))
        #expect(fields.year == 2026 && fields.month == 2 && fields.day == 31)
    }

    @Test("days add across months, leap days and years")
    func adding() throws {
        #expect(try CalendarDay.parse("2024-02-28").adding(days: 1)?.iso == "2024-02-29")
        #expect(try CalendarDay.parse("2024-02-29").adding(days: 1)?.iso == "2024-03-01")
        #expect(try CalendarDay.parse("2026-12-31").adding(days: 1)?.iso == "2027-01-01")
        #expect(try CalendarDay.parse("2026-01-01").adding(days: -1)?.iso == "2025-12-31")
        #expect(try CalendarDay.parse("1970-01-01").adding(days: 20_417)?.iso == "2025-11-25")
        #expect(try CalendarDay.parse("9999-12-31").adding(days: 1) == nil)
        #expect(try CalendarDay.parse("0001-01-01").adding(days: -1) == nil)
    }

    @Test("midnight is the day's first moment in the time zone asked for")
    func midnight() throws {
        let day = try CalendarDay.parse("25.11.2026")
        let moscow = try #require(TimeZone(identifier: "Europe/Moscow"))
        let utc = try #require(TimeZone(secondsFromGMT: 0))
        let inMoscow = try #require(day.midnight(in: moscow))
        let inUTC = try #require(day.midnight(in: utc))
        #expect(inUTC.timeIntervalSince(inMoscow) == 3 * 3600)
        #expect(CalendarDay.containing(inMoscow, in: moscow) == day)
        #expect(CalendarDay.containing(inMoscow, in: utc)?.iso == "2026-11-24")
    }

    @Test("days order by the calendar, not by their text")
    func order() throws {
        #expect(try CalendarDay.parse("31.12.2025") < CalendarDay.parse("01.01.2026"))
    }
}
