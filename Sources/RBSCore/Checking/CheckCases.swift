import Foundation

/// A plugin author's cases for `rbs-host plugin check --cases FILE` (issue #32 item 6): values entered in order, and
/// either the document expected (the fields named must be there with these values, and the core must accept it) or
/// the refusal expected (the atom it names, and its message when given). A JSON array:
/// ```json
/// [
///   {"name": "between own accounts",
///    "operation": "transfer.own",
///    "values": [["fromAccount", "40817810438000000001"], ["toAccount", "40817810738000000002"], ["amount", "100.50"]],
///    "document": {"amount": "100.50", "currency": "RUB"}},
///   {"name": "a zero amount is refused",
///    "operation": "transfer.own",
///    "values": [["amount", "0"]],
///    "refused": {"atom": "amount", "message": "the amount must be more than zero"}}
/// ]
/// ```
/// The check runs in the throw-away data folder of `plugin check`, whose core has the demo customer's accounts
/// (`40817810438000000001` RUB 150 000, `40817810738000000002` RUB 500 000, `40817810038000000003` blocked,
/// `40817840638000000004` USD 2 500).
public struct CheckCase: Equatable, Sendable {
    /// What the case expects.
    public enum Expectation: Equatable, Sendable {
        /// A document with at least these fields and values, which the core accepts.
        case document([String: String])
        /// A refusal naming `atom` (nil: the form as a whole), with exactly `message` when given.
        case refused(atom: String?, message: String?)
    }

    public var name: String
    public var operation: String
    public var values: [(atom: String, value: String)]
    public var expectation: Expectation

    public static func == (left: CheckCase, right: CheckCase) -> Bool {
        left.name == right.name && left.operation == right.operation && left.expectation == right.expectation
            && left.values.map(\.atom) == right.values.map(\.atom) && left.values.map(\.value) == right.values.map(\.value)
    }

    /// Reads a cases file; every problem names the file, the case (by number and name) and what to write instead.
    public static func read(_ path: String) throws(CheckCasesError) -> [CheckCase] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CheckCasesError(file: path, position: nil, reason: "cannot read it (\((error as NSError).localizedDescription))")
        }
        let json: Any
        do { json = try JSONSerialization.jsonObject(with: data) } catch {
            throw CheckCasesError(file: path, position: nil, reason: "not JSON (\((error as NSError).localizedDescription))")
        }
        guard let array = json as? [Any] else {
            throw CheckCasesError(file: path, position: nil, reason: "not a JSON array of cases")
        }
        guard !array.isEmpty else { throw CheckCasesError(file: path, position: nil, reason: "no cases") }
        var cases: [CheckCase] = []
        for (index, item) in array.enumerated() {
            let object = item as? [String: Any]
            let position = "case \(index + 1)" + ((object?["name"] as? String).map { " (\($0))" } ?? "")
            func fail(_ reason: String) -> CheckCasesError { CheckCasesError(file: path, position: position, reason: reason) }
            guard let object else { throw fail("not a JSON object") }
            let known: Set<String> = ["name", "operation", "values", "document", "refused"]
            if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
                throw fail("unknown key '\(unknown)' (a case has name, operation, values, and document or refused)")
            }
            guard let name = object["name"] as? String, !name.isEmpty else { throw fail("no \"name\" (a text)") }
            guard let operation = object["operation"] as? String, !operation.isEmpty else {
                throw fail("no \"operation\" (the operation id)")
            }
            guard let rawValues = object["values"] as? [Any] else {
                throw fail("no \"values\" (an array of [atom, value] pairs, in the order a person enters them)")
            }
            var values: [(atom: String, value: String)] = []
            for (number, pair) in rawValues.enumerated() {
                guard let pair = pair as? [Any], pair.count == 2, let atom = pair[0] as? String, let value = pair[1] as? String else {
                    throw fail("value \(number + 1) is not an [atom, value] pair of two texts")
                }
                values.append((atom, value))
            }
            let expectation: Expectation
            switch (object["document"], object["refused"]) {
            case (let document?, nil):
                guard let fields = document as? [String: Any], !fields.isEmpty,
                      fields.values.allSatisfy({ $0 is String }) else {
                    throw fail("\"document\" is not an object of field names and texts")
                }
                expectation = .document(fields.compactMapValues { $0 as? String })
            case (nil, let refused?):
                guard let refusal = refused as? [String: Any], refusal.keys.allSatisfy(["atom", "message"].contains),
                      refusal["atom"].map({ $0 is String }) ?? true, refusal["message"].map({ $0 is String }) ?? true else {
                    throw fail("\"refused\" is not an object with \"atom\" (the field the refusal names) and an optional \"message\"")
                }
                expectation = .refused(atom: refusal["atom"] as? String, message: refusal["message"] as? String)
            default:
                throw fail("give exactly one of \"document\" (the fields expected) or \"refused\" (the atom and message expected)")
            }
            cases.append(CheckCase(name: name, operation: operation, values: values, expectation: expectation))
        }
        return cases
    }
}

/// Why a cases file cannot be used: the file, the case and what is wrong.
public struct CheckCasesError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var position: String?
    public var reason: String

    public var description: String {
        "\(file)\(position.map { ": \($0)" } ?? ""): \(reason) — see `rbs-host plugin check --help` for the cases format"
    }
}
