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
        /// The form's captions by atom id (empty when no form was opened), to name each issue's field as people know it.
        var captions: [String: String] = [:]

        /// Each issue as text, its field named once by its caption (as `run` and the form name it).
        var named: [String] { issues.map { RunText.named($0, captions: captions) } }
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
        let captions = Dictionary(session.atoms.map { ($0.id, $0.caption) }, uniquingKeysWith: { first, _ in first })
        guard issues.isEmpty else { return .failure(Refused(issues: issues, captions: captions)) }
        switch session.submit() {
        case .ready(let ready): return .success(ready)
        case .needsAttention(let attention): return .failure(Refused(issues: attention, captions: captions))
        case .failed(let why): return refused([AtomIssue(atom: nil, message: why)])
        }
    }
}
