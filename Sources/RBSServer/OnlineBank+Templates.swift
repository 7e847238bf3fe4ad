import Foundation
import Hummingbird
import HTTPTypes
import RBSCore
import RBSLedger

/// A customer's own templates (``TemplateStore/init(dataDirectory:customer:)``: saved from an open form or from a
/// signed entry, listed, renamed, deleted, run) and the repeat of one of their journal entries.
extension OnlineBank {
    private func templateStore(_ customer: Customer) -> TemplateStore {
        TemplateStore(dataDirectory: runtime.paths.data, customer: customer)
    }

    static func problem(_ error: TemplateError, language: HostLanguage = .en) -> Problem {
        switch error {
        case .invalidName(let name):
            Problem("invalid-name", "The name is not accepted", status: 422,
                    detail: language.pick(error.description,
                                          "«\(name)» не может быть именем шаблона: 1–64 буквы, цифры, «.», «-» или «_», без пробелов"),
                    atom: "name")
        case .unknown: Problem.notFound(error.description)
        case .exists(let name):
            Problem("template-exists", "A template has this name", status: 409,
                    detail: language.pick(error.description, "шаблон «\(name)» уже есть: выберите другое имя или сначала удалите тот"),
                    atom: "name")
        case .nothingFilled: Problem("nothing-filled", "Nothing to keep", status: 422, detail: error.description)
        case .unreadable, .storage: Problem.internalError(error.description)
        }
    }

    private func json(_ name: String, _ template: FormTemplate, language: HostLanguage = .en) -> API.Template {
        API.Template(name: name, operation: template.operation,
                     title: runtime.registry.listedDescriptor(template.operation)?.localized(language).title ?? template.operation,
                     values: template.values)
    }

    func templates(of customer: Customer, language: HostLanguage = .en) throws(Problem) -> [API.Template] {
        do throws(TemplateError) {
            return try templateStore(customer).all().map { json($0.name, $0.template, language: language) }
        } catch {
            throw Self.problem(error)
        }
    }

    /// Keeps the values of `run` (an open form of the customer's) or of the form journal entry `entry` was signed
    /// from as template `name`; a name in use is refused (409), never overwritten.
    func saveTemplate(_ request: API.TemplateRequest, for customer: Customer,
                      language: HostLanguage = .en) async throws(Problem) -> API.Template {
        let form: FormTemplate
        switch (request.run, request.entry) {
        case (let id?, nil):
            let run = try find(id, customer)
            form = try await onLane(run) { () throws(Problem) -> FormTemplate in
                guard let session = run.session, !session.isClosed else {
                    throw Problem("run-finished", "The run is finished", status: 409,
                                  detail: "this run's form is closed; save a template from its journal entry instead (entry)")
                }
                return FormTemplate(session: session)
            }
        case (nil, let sequence?):
            form = try await entryForm(sequence, of: customer)
        default:
            throw Problem.badJSON("send exactly one of \"run\" (an open form) and \"entry\" (a journal entry's number)")
        }
        guard !form.values.isEmpty else { throw Self.problem(.nothingFilled) }
        do throws(TemplateError) {
            try templateStore(customer).add(form, as: request.name)
        } catch {
            throw Self.problem(error, language: language)
        }
        return json(request.name, form)
    }

    func renameTemplate(_ name: String, to newName: String, for customer: Customer) throws(Problem) -> API.Template {
        do throws(TemplateError) {
            let store = templateStore(customer)
            try store.rename(name, to: newName)
            return json(newName, try store.load(newName))
        } catch {
            throw Self.problem(error)
        }
    }

    func deleteTemplate(_ name: String, for customer: Customer) throws(Problem) {
        do throws(TemplateError) { try templateStore(customer).delete(name) } catch { throw Self.problem(error) }
    }

    /// A new run of the template's operation with its values filled in.
    func runTemplate(_ name: String, language: HostLanguage, for customer: Customer) async throws(Problem) -> API.Run {
        let template: FormTemplate
        do throws(TemplateError) { template = try templateStore(customer).load(name) } catch { throw Self.problem(error) }
        return try await open(template.operation, language: language, prefill: template, for: customer)
    }

    /// A new run of journal entry `sequence`'s operation with the values the customer entered then (`repeat N`).
    func repeatEntry(_ sequence: Int64, language: HostLanguage, for customer: Customer) async throws(Problem) -> API.Run {
        let form = try await entryForm(sequence, of: customer)
        return try await open(form.operation, language: language, prefill: form, for: customer)
    }

    /// The form journal entry `sequence` was signed from, when the customer signed it (another's is not found).
    private func entryForm(_ sequence: Int64, of customer: Customer) async throws(Problem) -> FormTemplate {
        _ = try await entry(sequence, of: customer)
        let ledger = self.ledger
        do {
            return try await Self.blocking { try ledger.repeatableForm(ofEntry: sequence) }
        } catch let error as EntryFormError {
            if case .storage(let inner) = error { throw Self.storageProblem("the entry's form could not be read", inner) }
            if case .altered = error {
                throw Problem("form-altered", "The entry's recorded form is not the one it signed", status: 409, detail: error.description)
            }
            throw Problem("no-form", "The entry has no form to repeat", status: 422, detail: error.description)
        } catch {
            throw Self.storageProblem("the entry's form could not be read", error)
        }
    }
}

extension Routes {
    /// The `name` path parameter as the customer wrote it (a page sends a Cyrillic name percent-encoded).
    static func templateName(_ context: APIContext) throws(Problem) -> String {
        let raw = try parameter(context, "name")
        return raw.removingPercentEncoding ?? raw
    }

    static func templateRoutes(_ api: RouterGroup<APIContext>, bank: OnlineBank) {
        api.get("/templates") { request, _ in
            try await answer { json(try bank.templates(of: try await customer(request, bank), language: language(request))) }
        }
        api.post("/templates") { request, _ in
            try await answer {
                let who = try await customer(request, bank)
                let save: API.TemplateRequest = try await body(request)
                return json(try await bank.saveTemplate(save, for: who, language: language(request)), status: .created)
            }
        }
        api.put("/templates/:name") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let rename: API.RenameRequest = try await body(request)
                return json(try bank.renameTemplate(try templateName(context), to: rename.name, for: who))
            }
        }
        api.delete("/templates/:name") { request, context in
            try await answer {
                try bank.deleteTemplate(try templateName(context), for: try await customer(request, bank))
                return Response(status: .noContent)
            }
        }
        api.post("/templates/:name/run") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let run = try await bank.runTemplate(try templateName(context), language: language(request), for: who)
                var response = json(run, status: .created)
                response.headers[.location] = "/api/v1/runs/\(run.id)"
                return response
            }
        }
        api.post("/journal/:entry/repeat") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let run = try await bank.repeatEntry(try entry(context), language: language(request), for: who)
                var response = json(run, status: .created)
                response.headers[.location] = "/api/v1/runs/\(run.id)"
                return response
            }
        }
    }
}
