import Foundation

/// A bank in the directory.
public struct Bank: Codable, Hashable, Sendable {
    public var bic: String
    public var name: String
    /// 20 digits, or "" for the Bank of Russia's own offices.
    public var correspondentAccount: String
    public var city: String
}

/// The bank directory (BIC → bank), read from a data file: one bank per line, `BIC;NAME;CORRESPONDENT ACCOUNT;CITY`,
/// `#` starts a comment. A malformed line is reported with its line number and skipped.
public final class BankDirectory: Sendable {
    /// A problem with one line of the file.
    public struct LineProblem: Error, CustomStringConvertible, Sendable, Equatable {
        public let file: String
        public let line: Int
        public let issue: String
        public var description: String { "\(file):\(line): \(issue) — line skipped" }
    }

    private let banks: [String: Bank]
    /// The malformed lines that were skipped.
    public let problems: [LineProblem]

    public init(banks: [Bank], problems: [LineProblem] = []) {
        self.banks = Dictionary(banks.map { ($0.bic, $0) }, uniquingKeysWith: { first, _ in first })
        self.problems = problems
    }

    /// Parses the directory's text; `file` names it in messages.
    public convenience init(text: String, file: String) {
        var banks: [Bank] = []
        var problems: [LineProblem] = []
        var seen = Set<String>()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ";", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            func problem(_ issue: String) { problems.append(LineProblem(file: file, line: index + 1, issue: issue)) }
            guard fields.count == 4 else {
                problem("expected 4 fields BIC;NAME;CORRESPONDENT ACCOUNT;CITY, found \(fields.count)")
                continue
            }
            let (bic, name, account, city) = (fields[0], fields[1], fields[2], fields[3])
            guard bic.count == 9, bic.allSatisfy(\.isASCIIDigit) else { problem("BIC '\(bic)' is not 9 digits"); continue }
            guard !name.isEmpty else { problem("the bank's name is empty"); continue }
            guard account.isEmpty || (account.count == 20 && account.allSatisfy(\.isASCIIDigit)) else {
                problem("correspondent account '\(account)' is not 20 digits"); continue
            }
            guard seen.insert(bic).inserted else { problem("BIC \(bic) appears twice"); continue }
            banks.append(Bank(bic: bic, name: name, correspondentAccount: account, city: city))
        }
        self.init(banks: banks, problems: problems)
    }

    /// Reads the directory file at `url`.
    public convenience init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        self.init(text: text, file: url.lastPathComponent)
    }

    /// The directory shipped with rbs-host.
    public static func bundled() -> BankDirectory {
        guard let url = Bundle.module.url(forResource: "banks", withExtension: "csv"),
              let directory = try? BankDirectory(contentsOf: url) else { return BankDirectory(banks: []) }
        return directory
    }

    public func bank(bic: String) -> Bank? { banks[bic] }
    public var count: Int { banks.count }
    public var all: [Bank] { banks.values.sorted { $0.bic < $1.bic } }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
