import CRBSPlugin

/// A version of the C ABI (`rbs_version_t`).
public struct ABIVersion: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var major: UInt32
    public var minor: UInt32
    public var patch: UInt32

    public init(major: UInt32, minor: UInt32, patch: UInt32) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    init(_ raw: rbs_version_t) { self.init(major: raw.major, minor: raw.minor, patch: raw.patch) }

    /// The version of `rbs_plugin.h` this host was compiled with.
    public static let host = ABIVersion(major: UInt32(RBS_ABI_MAJOR), minor: UInt32(RBS_ABI_MINOR),
                                        patch: UInt32(RBS_ABI_PATCH))

    var raw: rbs_version_t { rbs_version_t(major: major, minor: minor, patch: patch) }

    public var description: String { "\(major).\(minor).\(patch)" }
    /// "1.0": what messages about compatibility name.
    public var short: String { "\(major).\(minor)" }

    public static func < (lhs: ABIVersion, rhs: ABIVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }
}
