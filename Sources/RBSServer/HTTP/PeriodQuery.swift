import Foundation
import Hummingbird
import RBSLedger
import RBSMoney

/// The `from` and `to` of a history or statement query: a day as a person types it (`25.11.2026` or `2026-11-25`,
/// read by the money module's one day reader; a whole day in the zone `tz` names — an IANA zone, the browser's — else in UTC;
/// both ends included) or an instant (ISO 8601 with its offset: `from` included, `to` not). A value that is neither,
/// an unknown zone, or a period that ends before it starts, is a 400 problem naming it.
struct PeriodQuery {
    var start: Date?
    var end: Date?

    init(_ request: Request) throws(Problem) {
        let query = request.uri.queryParameters
        var zone = TimeZone(secondsFromGMT: 0) ?? .current
        if let name = query["tz"].map(String.init), !name.isEmpty {
            guard let named = TimeZone(identifier: name) else {
                throw Self.problem("tz=\(name) is not a time zone (an IANA name such as Europe/Moscow)", parameter: "tz")
            }
            zone = named
        }
        start = try Self.moment(query["from"].map(String.init), name: "from", nextDay: false, zone: zone)
        end = try Self.moment(query["to"].map(String.init), name: "to", nextDay: true, zone: zone)
        if let start, let end, end <= start {
            throw Self.problem("the period ends (to=\(query["to"] ?? "")) before or when it starts (from=\(query["from"] ?? ""))", parameter: "to")
        }
    }

    var statementPeriod: StatementPeriod { StatementPeriod(start: start, end: end) }

    /// A refused query; `parameter` (the problem's `atom`) names the query parameter, so a client can mark its field
    /// and say it in the person's words.
    static func problem(_ detail: String, parameter: String? = nil) -> Problem {
        Problem("bad-query", "The query is not understood", status: 400, detail: detail, atom: parameter)
    }

    /// `text` as a moment; a day's `to` is the next day's midnight (the day is included).
    private static func moment(_ text: String?, name: String, nextDay: Bool, zone: TimeZone) throws(Problem) -> Date? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let instant = ISO8601DateFormatter()
        instant.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = instant.date(from: text) { return date }
        instant.formatOptions = [.withInternetDateTime]
        if let date = instant.date(from: text) { return date }
        if let day = try? CalendarDay.parse(text, .either), let moment = nextDay ? day.end(in: zone) : day.midnight(in: zone) {
            return moment
        }
        throw problem("\(name)=\(text) is neither a day (ДД.ММ.ГГГГ or YYYY-MM-DD) nor an instant (ISO 8601, e.g. 2026-11-25T00:00:00+03:00)",
                      parameter: name)
    }
}
