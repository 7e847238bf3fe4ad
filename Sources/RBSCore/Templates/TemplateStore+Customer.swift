import Foundation
import RBSLedger

/// A customer's own templates (`serve`): `DATA/templates/customers/ID/NAME.json`, kept apart from the host's
/// (`template save`) and from every other customer's, so a customer lists, renames, deletes and runs only theirs.
/// The same ``TemplateStore`` rules hold: names of 1–64 letters, digits, '.', '-' or '_'; the folder 0700, each file
/// 0600; no secret, one-time code or card number is ever kept (``FormTemplate/init(session:)``).
extension TemplateStore {
    public init(dataDirectory: URL, customer: Customer) {
        self.init(directory: dataDirectory.appendingPathComponent("templates/customers/\(customer.id)"))
    }

    /// Every template with its name, by name.
    public func all() throws(TemplateError) -> [(name: String, template: FormTemplate)] {
        var found: [(name: String, template: FormTemplate)] = []
        for name in names() { found.append((name, try load(name))) }
        return found
    }

    /// Keeps `template` as `name` when no template has that name yet.
    public func add(_ template: FormTemplate, as name: String) throws(TemplateError) {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        guard !names().contains(name) else { throw .exists(name) }
        try save(template, as: name)
    }

    /// Gives template `name` the name `newName` (refused when another template has it).
    public func rename(_ name: String, to newName: String) throws(TemplateError) {
        let template = try load(name)
        guard name != newName else { return }
        try add(template, as: newName)
        try delete(name)
    }

    /// Forgets template `name`.
    public func delete(_ name: String) throws(TemplateError) {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        guard names().contains(name) else { throw .unknown(name, known: names()) }
        do {
            try FileManager.default.removeItem(at: url(name))
        } catch {
            throw .storage("\(error)")
        }
    }
}
