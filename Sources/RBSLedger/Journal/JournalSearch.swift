import Foundation
import RBSMoney

/// A search of the history as a person types it: "ромашка", "оплата по счёту", "1 500,50".
///
/// An entry matches when its document's payee (`name`) or purpose (`purpose`) contains the text (ignoring case
/// and the difference of е and ё), or when the text reads as an amount (by ``AmountText``'s rules, in either
/// language; a form with two readings, "1,500", matches either) equal to the document's amount.
public struct JournalSearch: Sendable, Hashable {
    /// The text as typed, trimmed; never empty.
    public let text: String
    /// The amounts the text can be read as (none when it is not a number).
    let amounts: [Decimal]

    /// Nil for a text with nothing but spaces (no search at all).
    public init?(_ typed: String) {
        let trimmed = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        text = trimmed
        do {
            amounts = [try AmountText.parseNumber(trimmed, locale: .en)]
        } catch .ambiguous(_, let grouped, let decimal, _) {
            amounts = [grouped, decimal]
        } catch {
            amounts = []
        }
    }

    public func matches(_ entry: JournalEntry, document: Document?) -> Bool {
        let needle = Self.folded(text)
        for field in [PaymentField.payeeName, .purpose] {
            if let value = document?.text(of: field), Self.folded(value).contains(needle) { return true }
        }
        guard !amounts.isEmpty, let amount = (document?.text(of: .amount) ?? entry.amount).flatMap(DecimalText.parse) else { return false }
        return amounts.contains(amount)
    }

    /// Lower case, ё as е, no diacritics: how a person expects a search to compare.
    static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: Locale(identifier: "ru_RU"))
            .replacingOccurrences(of: "ё", with: "е")
    }
}
