import Foundation
import RBSCore
import RBSLedger

/// What `run @NAME` and `repeat N` say about the values of a template or journal entry that the operation no longer has.
enum TemplateText {
    /// - Parameter source: where the values came from: "template rent", "journal entry 5".
    static func dropped(_ values: [FormTemplate.Value], from source: String, session: FormSession) -> String {
        let operation = session.operation
        return "\(source): \(operation.id) \(operation.plugin.version) has no atom "
            + values.map { "\($0.id) (its value '\($0.value)' was dropped)" }.joined(separator: ", ")
    }
}
