import Foundation
import Hummingbird
import RBSLedger
import RBSMoney

/// The `from` and `to` of a history or statement query: a day (`2026-11-25` or `25.11.2026`, a whole UTC day, both ends
/// included) or an instant (ISO 8601 with its offset: `from` included, `to` not), so a page can send the person's
/// own midnights. A value that is neither, or a period that ends before it starts, is a 400 problem naming it.
struct PeriodQuery {
    var start: Date?
    var end: Date?

    init(_ request: Request) throws(Problem) {
        let query = request.uri.queryParameters
        start = try Self.moment(query["from"].map(String.init), name: "from", nextDay: false)
        end = try Self.moment(query["to"].map(String.init), name: "to", nextDay: true)
        if let start, let end, end <= start {
            throw Self.problem("the period ends (to=\(query["to"] ?? "")) before or when it starts (from=\(query["from"] ?? ""))")
        }
    }

    var statementPeriod: StatementPeriod { StatementPeriod(start: start, end: end) }

    static func problem(_ detail: String) -> Problem {
        Problem("bad-query", "The query is not understood", status: 400, detail: detail)
    }

    /// `text` as a moment; a day's `to` is the next day's midnight (the day is included).
    private static func moment(_ text: String?, name: String, nextDay: Bool) throws(Problem) -> Date? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let instant = ISO8601DateFormatter()
        instant.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = instant.date(from: text) { return date }
        instant.formatOptions = [.withInternetDateTime]
        if let date = instant.date(from: text) { return date }
        if let day = try? CalendarDay.parse(text, .either), let included = day.adding(days: nextDay ? 1 : 0),
           let utc = TimeZone(secondsFromGMT: 0), let midnight = included.midnight(in: utc) {
            return midnight
        }
        throw problem("\(name)=\(text) is neither a day (YYYY-MM-DD or ДД.ММ.ГГГГ) nor an instant (ISO 8601, e.g. 2026-11-25T00:00:00+03:00)")
    }
}
