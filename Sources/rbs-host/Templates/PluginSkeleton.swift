import Foundation

/// The names a new plugin skeleton uses, derived from NAME (`rbs-host plugin new NAME`).
struct PluginSkeleton {
    /// NAME as given: lowercase letters, digits and '-', starting with a letter ("my-payment").
    var name: String
    /// The absolute path of the rbs-host checkout (its headers, and the Swift SDK package).
    var sdk: URL

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

    /// The folder of the C ABI headers in the checkout.
    var includeDirectory: URL { sdk.appendingPathComponent("Sources/CRBSPlugin/include") }

    /// The files of a skeleton in `language`: path inside NAME/ → contents.
    func files(for language: PluginLanguage) -> [(path: String, contents: String)] {
        switch language {
        case .c: CTemplate.files(self)
        case .swift: SwiftTemplate.files(self)
        case .rust: RustTemplate.files(self)
        }
    }

    /// Whether the skeleton gets a copy of the C headers (include/).
    static func copiesHeaders(_ language: PluginLanguage) -> Bool { language != .swift }
}

/// The languages `plugin new` writes skeletons in.
enum PluginLanguage: String, CaseIterable {
    case c, swift, rust
}
