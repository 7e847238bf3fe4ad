import Foundation
import RBSMoney

/// A pattern of plugin ids a publisher key is trusted to sign (`trust add KEY --ids ru.mybank.*`), as The Update
/// Framework delegates a role to a set of target paths: an exact id (`ru.mybank.topup`), every id under a prefix
/// (`ru.mybank.*`: `ru.mybank.topup`, `ru.mybank.cards.block`, never `ru.mybank` itself or `ru.mybanker.x`), or `*`
/// (every id: what a key trusted without `--ids` may sign).
public struct PluginIDPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String

    /// Reads one pattern; refuses what could never match a plugin id, or would match more than it says.
    public init(_ text: String) throws(TrustError) {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard text != "*" else {
            self.text = text
            return
        }
        let body = text.hasSuffix(".*") ? String(text.dropLast(2)) : text
        let segments = body.split(separator: ".", omittingEmptySubsequences: false)
        guard !body.isEmpty, segments.allSatisfy({ !$0.isEmpty && $0.allSatisfy(Self.isIDCharacter) }) else {
            throw .badIDPattern(text)
        }
        self.text = text
    }

    /// Reads a comma-separated list (`--ids a.*,b.c`, or the stored form); empty text is every id.
    public static func list(_ text: String) throws(TrustError) -> [PluginIDPattern] {
        var patterns: [PluginIDPattern] = []
        for part in text.split(separator: ",") where !part.trimmingCharacters(in: .whitespaces).isEmpty {
            patterns.append(try PluginIDPattern(String(part)))
        }
        return patterns
    }

    /// Whether a plugin with this id may be signed under the pattern.
    public func admits(_ id: String) -> Bool {
        if text == "*" { return true }
        if text.hasSuffix(".*") { return id.hasPrefix(String(text.dropLast())) && id.count > text.count - 1 }
        return id == text
    }

    public var description: String { text }

    /// The characters of a plugin id's segment (reverse-DNS: letters, digits, '-' and '_').
    private static func isIDCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }
}

extension TrustedKeys.Entry {
    /// Why this key may not sign plugin `id` on `today` (UTC), or nil when it may: revoked, past its last day, or
    /// outside the ids it is trusted for.
    public func refusal(signing id: String, today: CalendarDay) -> TrustRefusal? {
        if let revoked { return .revokedKey(publicKey: key, on: revoked, reason: revokedReason) }
        if let expires, isExpired(today: today) { return .expiredKey(publicKey: key, lastDay: expires) }
        // An unreadable stored scope admits nothing: a damaged line never widens what a key may sign.
        guard !ids.isEmpty else { return nil }
        let patterns = ids.compactMap { try? PluginIDPattern($0) }
        guard patterns.count == ids.count, patterns.contains(where: { $0.admits(id) }) else {
            return .outsideKeyScope(publicKey: key, pluginID: id, ids: ids)
        }
        return nil
    }

    /// Whether `today` (UTC) is after the key's last trusted day.
    public func isExpired(today: CalendarDay) -> Bool {
        guard let expires, let last = try? CalendarDay.parse(expires, .iso) else { return false }
        return last < today
    }
}
