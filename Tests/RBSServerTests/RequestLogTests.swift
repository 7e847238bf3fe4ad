import Foundation
@testable import RBSServer
import Testing

/// The request log's line (Common Log Format).
@Suite("serve: request log")
struct RequestLogTests {
    @Test("the time is the Common Log Format's in UTC, as a DateFormatter with dd/MMM/yyyy:HH:mm:ss Z writes it")
    func timestamp() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "dd/MMM/yyyy:HH:mm:ss Z"
        // 2026-11-25 14:53:49.75, the first and last second of a year, a leap day, a single-digit day and hour.
        for seconds in [1_795_618_429.75, 1_767_225_600, 1_798_761_599, 1_709_164_800, 1_775_437_205.5] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(RequestLog.timestamp(date) == formatter.string(from: date), "\(seconds)")
        }
        #expect(RequestLog.timestamp(Date(timeIntervalSince1970: 1_795_618_429)) == "25/Nov/2026:14:53:49 +0000")
    }

    @Test("the duration is in seconds with six decimals, rounded to the microsecond as %.6f writes it")
    func duration() {
        let cases: [Duration] = [.zero, .nanoseconds(499), .nanoseconds(501), .microseconds(1), .microseconds(999_999),
                                 .nanoseconds(999_999_600), .milliseconds(12) + .nanoseconds(345_678), .seconds(61) + .microseconds(7)]
        for elapsed in cases {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            #expect(RequestLog.seconds(elapsed) == String(format: "%.6f", seconds), "\(elapsed)")
        }
        #expect(RequestLog.seconds(.milliseconds(12) + .nanoseconds(345_678)) == "0.012346")
        #expect(RequestLog.seconds(.nanoseconds(999_999_600)) == "1.000000")
    }

    @Test("a header's value is trimmed of the spaces and tabs around it, and only of them")
    func trimmedHeader() {
        #expect(SameOriginGuard.trimmed(" \t application/json\t ") == "application/json")
        #expect(SameOriginGuard.trimmed("a b") == "a b")
        #expect(SameOriginGuard.trimmed(" \t ") == "")
        #expect(SameOriginGuard.trimmed("") == "")
        #expect(SameOriginGuard.normalised(" HTTP://Example.ORG:80/ ") == "http://example.org")
    }
}
