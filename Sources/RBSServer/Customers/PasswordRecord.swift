import _CryptoExtras
import Crypto
import Foundation
import RBSLedger

/// A customer's login secret as stored: scrypt (swift-crypto's `KDF.Scrypt`, RFC 7914) with a random 16-byte salt,
/// written as `scrypt$N$r$p$SALT$KEY` (hex), so the parameters can grow without invalidating older records.
/// Never a bare hash: a stolen database costs an attacker ~16 MB and tens of milliseconds per guess.
package struct PasswordRecord: Sendable, Equatable {
    package var rounds: Int
    package var blockSize: Int
    package var parallelism: Int
    package var salt: [UInt8]
    package var key: [UInt8]

    /// N = 2^14, r = 8, p = 1: RFC 7914's interactive-login parameters. A debug build (never a release one) takes N
    /// from `RBS_TEST_PASSWORD_ROUNDS` when it is set to a power of two: `make test` sets 1024, since its suites start
    /// debug hosts that add customers and log them in hundreds of times, and BoringSSL's scrypt compiled without
    /// optimisation cost ~0.5 s of CPU each at 2^14, on a CI that is CPU-bound. A record keeps its own N, so logging in
    /// checks it with that; the decoy of an unknown name uses the same N as new records.
    package static let standardRounds = rounds(environment: ProcessInfo.processInfo.environment)

    /// ``standardRounds`` from `environment`: 2^14 unless `RBS_TEST_PASSWORD_ROUNDS` is a power of two above 1 and
    /// the build is a debug one. Anything else there — not a number, 0, 1, 1000, a negative — gives 2^14, never a
    /// weaker hash than the one asked for.
    package static func rounds(environment: [String: String]) -> Int {
        #if DEBUG
        if let text = environment["RBS_TEST_PASSWORD_ROUNDS"], let rounds = Int(text), rounds > 1, rounds & (rounds - 1) == 0 {
            return rounds
        }
        #endif
        return 1 << 14
    }

    /// A record for `password` with a fresh salt.
    package static func make(password: String, rounds: Int = standardRounds) throws -> PasswordRecord {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var record = PasswordRecord(rounds: rounds, blockSize: 8, parallelism: 1, salt: salt, key: [])
        record.key = try record.derive(password)
        return record
    }

    /// Parses a stored record; nil when it is not one.
    package init?(_ text: String) {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let n = Int(parts[1]), let r = Int(parts[2]), let p = Int(parts[3]),
              n > 1, n & (n - 1) == 0, (1...64).contains(r), (1...16).contains(p),
              let salt = Self.hex(parts[4]), let key = Self.hex(parts[5]), !salt.isEmpty, key.count == 32 else { return nil }
        self.init(rounds: n, blockSize: r, parallelism: p, salt: salt, key: key)
    }

    private init(rounds: Int, blockSize: Int, parallelism: Int, salt: [UInt8], key: [UInt8]) {
        self.rounds = rounds
        self.blockSize = blockSize
        self.parallelism = parallelism
        self.salt = salt
        self.key = key
    }

    /// The stored form.
    package var text: String {
        "scrypt$\(rounds)$\(blockSize)$\(parallelism)$\(Hex.encode(salt))$\(Hex.encode(key))"
    }

    /// Whether `password` is the one this record was made from (compared in constant time).
    package func matches(_ password: String) -> Bool {
        guard let derived = try? derive(password), derived.count == key.count else { return false }
        var difference: UInt8 = 0
        for index in key.indices { difference |= key[index] ^ derived[index] }
        return difference == 0
    }

    private func derive(_ password: String) throws -> [UInt8] {
        let derived = try KDF.Scrypt.deriveKey(from: Array(password.utf8), salt: salt, outputByteCount: 32,
                                               rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        return derived.withUnsafeBytes { Array($0) }
    }

    private static func hex(_ text: String) -> [UInt8]? { Hex.decode(text, lowercaseOnly: true).map { Array($0) } }
}
