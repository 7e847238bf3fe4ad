import Foundation
import RBSCore
import RBSLedger

/// What `run @NAME` and `repeat N` say about the values of a template or journal entry that the operation no longer has.
enum TemplateText {
    /// - Parameter source: where the values came from: "template rent", "journal entry 5" (in the session's language).
    static func dropped(_ values: [FormTemplate.Value], from source: String, session: FormSession) -> String {
        let operation = session.operation, language = session.language
        return HostMessage.report(.hasNoAtom(source: source, operation: operation.id, version: operation.plugin.version)).text(language)
            + values.map { HostMessage.report(.droppedValue(id: $0.id, value: $0.value)).text(language) }.joined(separator: ", ")
    }
}
