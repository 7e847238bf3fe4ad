import Foundation
import RBSCore

/// What `run @NAME` says about a template's values the operation no longer has.
enum TemplateText {
    static func dropped(_ values: [FormTemplate.Value], template name: String, session: FormSession) -> String {
        let operation = session.operation
        return "template \(name): \(operation.id) \(operation.plugin.version) has no atom "
            + values.map { "\($0.id) (its value '\($0.value)' was dropped)" }.joined(separator: ", ")
    }
}
