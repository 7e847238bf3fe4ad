import CRBSPlugin
import Foundation

/// Collects the fields a plugin puts while building a document, refusing malformed or repeated keys.
final class DocumentCollector {
    private(set) var fields: [(key: String, value: String)] = []
    /// The first thing the plugin did wrong, if anything.
    private(set) var problem: String?

    func withBuilder(_ body: (UnsafePointer<rbs_document_builder_t>) -> rbs_status_t) -> rbs_status_t {
        var builder = rbs_document_builder_t(
            host_data: Unmanaged.passUnretained(self).toOpaque(),
            put: { builder, key, value in
                guard let data = builder?.pointee.host_data else { return false }
                let collector = Unmanaged<DocumentCollector>.fromOpaque(data).takeUnretainedValue()
                return collector.put(key, value)
            })
        return withUnsafePointer(to: &builder) { body($0) }
    }

    private func put(_ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> Bool {
        guard let key, let value else { return refuse("put(NULL)") }
        guard let keyText = String(validatingCString: key) else { return refuse("a key is not valid UTF-8") }
        guard Self.isKey(keyText) else { return refuse("key '\(keyText)' is not [a-z][A-Za-z0-9_]*") }
        guard !fields.contains(where: { $0.key == keyText }) else { return refuse("key '\(keyText)' is put twice") }
        guard let valueText = String(validatingCString: value) else { return refuse("the value of '\(keyText)' is not valid UTF-8") }
        fields.append((keyText, valueText))
        return true
    }

    private func refuse(_ why: String) -> Bool {
        if problem == nil { problem = why }
        return false
    }

    static func isKey(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
        return key.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
    }
}
