import Crypto
import Foundation

/// Passkey registration challenges waiting for their answer, one per customer: 32 random bytes, valid for five
/// minutes and used once (a new request replaces the waiting one). Kept in memory: a restart asks again.
final class PasskeyChallenges: @unchecked Sendable {
    static let lifetime: TimeInterval = 5 * 60
    private let lock = NSLock()
    private var waiting: [Int64: (challenge: Data, expires: Date)] = [:]

    /// A new challenge for customer `id`.
    func issue(for id: Int64, now: Date) -> Data {
        let challenge = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        lock.withLock {
            waiting = waiting.filter { $0.value.expires > now }
            waiting[id] = (challenge, now.addingTimeInterval(Self.lifetime))
        }
        return challenge
    }

    /// Takes customer `id`'s waiting challenge (it cannot be used again), or nil when none is live.
    func take(for id: Int64, now: Date) -> Data? {
        lock.withLock {
            guard let entry = waiting.removeValue(forKey: id), entry.expires > now else { return nil }
            return entry.challenge
        }
    }
}
