import Foundation

/// A new plugin's files, made from the templates in the SDK (`SDK/Templates/<language>/`): real plugins named
/// `my-plugin` that the test suite builds and checks, copied with the names replaced. Each skeleton also gets the
/// part of the SDK it builds against (nothing outside NAME/, nothing absolute to the checkout):
/// C `include/` (the headers), Rust `rbs-plugin-abi/` (the ABI binding crate), Swift `rbs-sdk/` (the SDK package).
struct PluginSkeleton {
    /// NAME as given: lowercase letters, digits and '-', starting with a letter ("my-payment").
    var name: String
    /// The SDK folder (`SDK/` of the rbs-host checkout).
    var sdk: URL

    /// The names the templates use, each replaced by the new plugin's.
    static let templateName = "my-plugin", templateIdentifier = "my_plugin", templateType = "MyPlugin",
               templateTitle = "My plugin"

    /// "com.example.my-payment"
    var pluginID: String { "com.example.\(name)" }
    /// "example.my-payment"
    var operationID: String { "example.\(name)" }
    /// "my_payment": a C / Rust identifier.
    var identifier: String { name.replacingOccurrences(of: "-", with: "_") }
    /// "MyPayment": a Swift type and target name.
    var typeName: String {
        name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
    /// "My payment": the title in lists.
    var title: String {
        let words = name.split(separator: "-").joined(separator: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    /// Whether NAME can be used: [a-z][a-z0-9-]*, at most 40 characters, no "--" or trailing '-'.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.count <= 40,
              !name.hasSuffix("-"), !name.contains("--") else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// Whether `folder` is an SDK folder: the headers and the templates.
    static func isSDK(_ folder: URL) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("Sources/CRBSPlugin/include/rbs_plugin.h").path)
            && FileManager.default.fileExists(atPath: folder.appendingPathComponent("Templates").path)
    }

    /// The template folder of `language`.
    func templates(_ language: PluginLanguage) -> URL { sdk.appendingPathComponent("Templates/\(language.rawValue)") }

    /// `text` with the template's names replaced by this plugin's.
    func substitute(_ text: String) -> String {
        text.replacingOccurrences(of: Self.templateName, with: name)
            .replacingOccurrences(of: Self.templateIdentifier, with: identifier)
            .replacingOccurrences(of: Self.templateType, with: typeName)
            .replacingOccurrences(of: Self.templateTitle, with: title)
    }

    /// The files of a skeleton in `language`: path inside NAME/ → contents.
    func files(for language: PluginLanguage) throws -> [(path: String, contents: Data)] {
        var files: [(path: String, contents: Data)] = []
        for path in try Self.files(under: templates(language)) {
            let text = try String(contentsOf: templates(language).appendingPathComponent(path), encoding: .utf8)
            files.append((substitute(path), Data(substitute(text).utf8)))
        }
        // The part of the SDK the skeleton builds against, verbatim.
        let parts: [(from: String, to: String)] = switch language {
        case .c: [("Sources/CRBSPlugin/include", "include")]
        case .rust: [("rust/rbs-plugin-abi", "rbs-plugin-abi")]
        case .swift: [("Package.swift", "rbs-sdk/Package.swift"), ("Sources", "rbs-sdk/Sources")]
        }
        for part in parts {
            let source = sdk.appendingPathComponent(part.from)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isFolder) else {
                throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: source.path])
            }
            let paths = isFolder.boolValue ? try Self.files(under: source) : [""]
            for path in paths {
                let file = path.isEmpty ? source : source.appendingPathComponent(path)
                let target = path.isEmpty ? part.to : "\(part.to)/\(path)"
                files.append((target, try Data(contentsOf: file)))
            }
        }
        return files
    }

    /// The files under `folder`, relative paths sorted, without build products (`.build`, `target`, `*.so`, locks).
    static func files(under folder: URL) throws -> [String] {
        let skipped: Set<String> = [".build", "target", "Package.resolved", "Cargo.lock"]
        var paths: [String] = []
        func walk(_ relative: String) throws {
            let url = relative.isEmpty ? folder : folder.appendingPathComponent(relative)
            for entry in try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            where !skipped.contains(entry) && !entry.hasSuffix(".so") && !entry.hasSuffix(".sig") {
                let path = relative.isEmpty ? entry : "\(relative)/\(entry)"
                var isFolder: ObjCBool = false
                // An entry removed since the listing is not part of the folder.
                guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isFolder) else { continue }
                if isFolder.boolValue { try walk(path) } else { paths.append(path) }
            }
        }
        try walk("")
        return paths
    }
}

/// The languages `plugin new` writes skeletons in.
enum PluginLanguage: String, CaseIterable {
    case c, swift, rust
}
