import Foundation
import RBSLedger

/// The named templates of a data folder: `DATA/templates/NAME.json`, the folder 0700 and each file 0600 (a template
/// holds payees and accounts).
public struct TemplateStore: Sendable {
    public let directory: URL

    public init(dataDirectory: URL) {
        self.init(directory: dataDirectory.appendingPathComponent("templates"))
    }

    /// The templates kept in `directory`.
    init(directory: URL) {
        self.directory = directory
    }

    /// Whether `name` can name a template: 1–64 letters, digits, '.', '-' or '_', not starting with '.'.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.count) && !name.hasPrefix(".")
            && name.allSatisfy { ($0.isLetter || $0.isNumber || "._-".contains($0)) && !$0.isWhitespace }
    }

    /// Keeps `template` as `name`, replacing one of that name.
    public func save(_ template: FormTemplate, as name: String) throws(TemplateError) {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try SecureFile.ensureDirectory(directory)
            try SecureFile.write(try encoder.encode(template), to: url(name))
        } catch let failure as SecureFile.Failure {
            switch failure { case .system(let detail): throw .storage(detail) }
        } catch {
            throw .storage("\(error)")
        }
    }

    /// The template called `name`.
    public func load(_ name: String) throws(TemplateError) -> FormTemplate {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        let path = url(name).path
        guard let data = FileManager.default.contents(atPath: path) else { throw .unknown(name, known: names()) }
        if let exposure = SecureFile.exposure(of: path) { throw .storage(exposure.description) }
        do {
            return try JSONDecoder().decode(FormTemplate.self, from: data)
        } catch {
            throw .unreadable(path: path, detail: "\(error)")
        }
    }

    /// The templates' names, sorted.
    public func names() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.filter(Self.isValidName).sorted()
    }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name + ".json") }
}

/// Why a template could not be saved or used.
public enum TemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidName(String)
    case unknown(String, known: [String])
    case unreadable(path: String, detail: String)
    case storage(String)
    /// No form was filled yet in this session.
    case nothingFilled
    /// Another template already has this name (a customer's template is never replaced by a new one).
    case exists(String)

    public var description: String {
        switch self {
        case .invalidName(let name):
            "'\(name)' cannot name a template: use 1–64 letters, digits, '.', '-' or '_'"
        case .unknown(let name, let known):
            "there is no template '\(name)'" + (known.isEmpty ? " (none saved yet: fill a form, then template save NAME)"
                : " (templates: \(known.joined(separator: ", ")))")
        case .unreadable(let path, let detail): "the template \(path) cannot be read: \(detail)"
        case .storage(let detail): "templates: \(detail)"
        case .nothingFilled: "no form was filled yet: run an operation, then template save NAME keeps its values"
        case .exists(let name): "there is already a template '\(name)': choose another name, or delete that one first"
        }
    }
}
