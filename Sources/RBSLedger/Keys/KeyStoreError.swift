/// Why the signing keys could not be created or loaded.
public enum KeyStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No key file yet.
    case notInitialized(path: String)
    /// Keys exist and `force` was not given.
    case keysExist(path: String)
    /// A key file has the wrong length or content.
    case corrupt(path: String, detail: String)
    /// A key file can be read by the group or by others.
    case insecurePermissions(path: String, mode: UInt32)
    /// A key file belongs to another user (or is otherwise not private to the user the host runs as).
    case notPrivate(SecureFile.Exposure)
    /// The enrolment name is empty or has control characters.
    case invalidName(String)
    /// The file system refused.
    case io(String)
    /// The OCRA suite asked for cannot be enrolled for signing.
    case unsupportedSuite(String)
    /// The signing library refused to sign.
    case signingFailed(String)

    public var description: String {
        switch self {
        case .notInitialized(let path):
            "no signing key at \(path); run `rbs-host keys init` to create one"
        case .keysExist(let path):
            "signing keys already exist at \(path); pass --force to replace them (documents signed with the old key stay verifiable in the journal)"
        case .corrupt(let path, let detail):
            "the key file \(path) is damaged (\(detail)); restore it from a backup or run `rbs-host keys init --force`"
        case .insecurePermissions(let path, let mode):
            "the key file \(path) is readable by others (mode \(String(mode, radix: 8))); run `chmod 600 \(path)`"
        case .notPrivate(let exposure):
            "the key file \(exposure.description)"
        case .invalidName(let name):
            "the name \"\(name)\" cannot be used for enrolment: give a non-empty name without control characters"
        case .io(let detail):
            "the signing keys could not be stored: \(detail)"
        case .unsupportedSuite(let detail):
            "\(detail); the host's suite is \(OCRASuite.hostDefault)"
        case .signingFailed(let detail):
            "the document could not be signed: \(detail)"
        }
    }
}
