import Foundation
import RBSCore
import RBSLedger

/// Fills an operation's form without the REPL (`run`, `basket sign --file`): the operation (or `@NAME`, a
/// template's operation and values, which the given values override), each `ID=VALUE` committed as a script gives
/// it, then submitted. The form's instance is closed before it returns; the draft is a value.
enum FormFill {
    /// Why the form gave no draft: every refused value, or what needs attention.
    struct Refused: Error {
        var issues: [AtomIssue]
    }

    static func draft(runtime: Runtime, operation: String, assignments: [Assignment]) -> Result<DocumentDraft, Refused> {
        func refused(_ issues: [AtomIssue]) -> Result<DocumentDraft, Refused> { .failure(Refused(issues: issues)) }
        var template: FormTemplate?
        if operation.hasPrefix("@") {
            do { template = try TemplateStore(dataDirectory: runtime.paths.data).load(String(operation.dropFirst())) } catch {
                return refused([AtomIssue(atom: nil, message: error.description)])
            }
        }
        let session: FormSession
        do { session = try runtime.open(template?.operation ?? operation) } catch { return refused([AtomIssue(atom: nil, message: error.description)]) }
        defer { session.close() }
        var values = assignments
        if let template {
            let (kept, dropped) = template.split(for: session.operation.descriptor)
            if !dropped.isEmpty { Terminal.error(TemplateText.dropped(dropped, from: "template \(operation.dropFirst())", session: session)) }
            values = kept.map { Assignment(id: $0.id, value: $0.value) } + assignments
        }
        var issues: [AtomIssue] = []
        for assignment in values {
            do { try session.commit(assignment.id, text: assignment.value) } catch {
                issues.append(AtomIssue(atom: assignment.id, message: session.describeCommitRefusal(error)))
            }
        }
        guard issues.isEmpty else { return refused(issues) }
        switch session.submit() {
        case .ready(let ready): return .success(ready)
        case .needsAttention(let attention): return refused(attention)
        case .failed(let why): return refused([AtomIssue(atom: nil, message: why)])
        }
    }
}
