/// Why a bank directory file was refused. Each message names the file, and for a bad entry its line and element.
public enum DirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    /// Not well-formed XML, at `line`.
    case malformed(file: String, line: Int, reason: String)
    /// The root element is not ED807.
    case notED807(file: String, root: String)
    /// An element with a missing or wrong attribute, at `line`.
    case invalidEntry(file: String, line: Int, element: String, reason: String)
    /// No BICDirectoryEntry at all.
    case empty(file: String)
    /// The data folder could not take the file.
    case storage(String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "\(path): cannot read the bank directory: \(reason)"
        case .malformed(let file, let line, let reason):
            "\(file):\(line): not well-formed XML: \(reason) — is it the Bank of Russia's ED807 file (unzipped)?"
        case .notED807(let file, let root):
            "\(file): the root element is <\(root)>, not <ED807>: import the Bank of Russia's BIC directory in ED807 format"
        case .invalidEntry(let file, let line, let element, let reason):
            "\(file):\(line): <\(element)>: \(reason)"
        case .empty(let file):
            "\(file): the ED807 file has no BICDirectoryEntry; nothing was imported"
        case .storage(let reason):
            reason
        }
    }
}
