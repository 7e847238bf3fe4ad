import Foundation
import RBSMoney

/// The language of the host's own messages (prompts, hints, errors, the review's captions): English or Russian, all
/// from one catalogue (``HostMessage``). Machine output (`--json`, document keys, journal codes) never changes with it.
public enum HostLanguage: String, Sendable, Hashable, CaseIterable {
    case en, ru

    /// `--lang` when given; else the POSIX order `LC_ALL`, `LC_MESSAGES`, `LANG` (the first one set and not empty
    /// decides): a Russian locale (`ru_RU.UTF-8`, `ru`) is Russian, anything else (`C`, `en_GB.UTF-8`) English.
    public static func choose(flag: HostLanguage?, environment: [String: String] = ProcessInfo.processInfo.environment) -> HostLanguage {
        if let flag { return flag }
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty {
                return AmountLocale(identifier: value) == .ru ? .ru : .en
            }
        }
        return .en
    }

    /// How amounts are written for a reader of this language: `1 500,50` (ru), `1,500.50` (en).
    public var amountLocale: AmountLocale { self == .ru ? .ru : .en }

    /// `en` or `ru` as the person wrote it; chooses between the two forms of one message.
    public func pick(_ english: String, _ russian: String) -> String { self == .ru ? russian : english }
}
