import Foundation
@testable import RBSCore
import Testing

/// The forms fixture plugin (Tests/Fixtures/forms/forms.c), built once per test into a fresh folder.
func formsRuntime() throws -> (Runtime, RegisteredOperation) {
    let folder = Fixtures.temporaryDirectory("forms")
    try Fixtures.compile(Fixtures.root.appendingPathComponent("Tests/Fixtures/forms/forms.c"),
                         to: folder.appendingPathComponent("forms.so"))
    let runtime = Fixtures.runtime(plugins: folder)
    runtime.loadPlugins()
    let record = try #require(runtime.registry.records.first)
    try #require(record.status == .loaded, "\(record.error ?? "")")
    return (runtime, try #require(runtime.registry.operation(id: "forms.all")))
}

/// The number of the fixture's instances alive now.
func liveInstances(_ operation: RegisteredOperation) -> Int32 {
    guard let symbol = operation.plugin.handle?.symbol("forms_live_instances") else { return -1 }
    return unsafeBitCast(symbol, to: (@convention(c) () -> Int32).self)()
}

@Suite("Form session")
struct FormSessionTests {
    @Test("show-if follows the seed's enum dependency, and hidden atoms refuse values")
    func enumDependency() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        #expect(form.atom("note")?.visible == false)
        #expect(throws: FormSessionError.hidden(id: "detail")) { try form.commit("detail", text: "x") }
        let shown = try form.commit("kind", text: "2")
        #expect(shown.appeared == ["note", "detail"])
        #expect(form.atom("kind")?.value == "2")
        let hidden = try form.commit("kind", text: "One")  // by title
        #expect(hidden.disappeared == ["note", "detail"])
        #expect(form.atom("kind")?.value == "1")
        #expect(throws: FormSessionError.self) { try form.commit("kind", text: "3") }
    }

    @Test("plugin functions of every type are called through libffi from show-if expressions")
    func foreignFunctions() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        #expect(form.atom("longName")?.visible == false)
        try form.commit("name", text: "Alexandra")  // isLong(string) -> bool
        #expect(form.atom("longName")?.visible == true)
        #expect(form.atom("greeted")?.visible == false)
        try form.commit("name", text: "ann")  // capitalised, then greeting(string) -> string
        #expect(form.atom("name")?.value == "Ann")
        #expect(form.atom("greeted")?.visible == true)
        #expect(form.atom("longName")?.visible == false)
        try form.commit("code", text: "1234")  // twice(int64) -> int64
        #expect(form.atom("bigCode")?.visible == true)
    }

    @Test("an instance-bound function sees the plugin's state after each commit")
    func volatileFunction() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        #expect(form.atom("busyNote")?.visible == false)
        try form.commit("name", text: "A")
        try form.commit("name", text: "B")
        #expect(form.atom("busyNote")?.visible == false)
        let third = try form.commit("name", text: "C")
        #expect(third.appeared.contains("busyNote"))
    }

    @Test("the plugin sets captions, values and errors through the host table")
    func mutators() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        let announced = try form.commit("name", text: "Fill")
        #expect(form.atom("note")?.caption == "Hello Fill")
        #expect(announced.captions.map(\.id) == ["note"])
        #expect(form.atom("code")?.value == "12", "set_value reached the form")
        try form.commit("name", text: "Bad")
        #expect(form.atom("name")?.error == "no bad names")
        try form.commit("name", text: "Formerr")
        #expect(form.atom("name")?.error == nil)
        #expect(form.formError == "the form is wrong")
        #expect(form.attention().contains(AtomIssue(atom: nil, message: "the form is wrong")))
        try form.press("ping")
        #expect(form.atom("ping")?.caption == "Pinged 1")
        #expect(throws: FormSessionError.notAButton(id: "name")) { try form.press("name") }
    }

    @Test("a bad value is an error on its atom with a message, and the old value stays")
    func badValues() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        try form.commit("code", text: "12")
        do {
            try form.commit("code", text: "1a")
            Issue.record("1a was accepted")
        } catch {
            #expect(error.description.contains("'a'"), "the refusal says what is wrong")
        }
        #expect(form.atom("code")?.value == "12")
        #expect(form.atom("code")?.error == nil, "a refused entry leaves no stale error behind")
        #expect(throws: FormSessionError.self) { try form.commit("code", text: "12345") }
        #expect(throws: FormSessionError.self) { try form.commit("amount", text: "12.345") }
        #expect(throws: FormSessionError.self) { try form.commit("amount", text: "1e3") }
        try form.commit("amount", text: "1 500,50")
        #expect(form.atom("amount")?.value == "1500.50")
        #expect(form.atom("amount")?.error == "at most 999.99", "a failing valid-if shows once the atom has a value")
        try form.commit("amount", text: "99,5")
        #expect(form.atom("amount")?.value == "99.50")
        #expect(form.atom("amount")?.error == nil, "the amount crossed to the plugin as money")
        #expect(throws: FormSessionError.unknownAtom(id: "nope", operation: "forms.all")) {
            try form.commit("nope", text: "1")
        }
        #expect(throws: FormSessionError.notEditable(id: "note", kind: .text)) { try form.commit("note", text: "1") }
    }

    @Test("submit marks required and invalid atoms; hidden atoms never block it nor reach the document")
    func submit() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        guard case .needsAttention(let issues) = form.submit() else {
            Issue.record("an empty form must need attention")
            return
        }
        #expect(issues.map(\.atom) == ["kind", "name", "agree"])
        try form.commit("kind", text: "2")
        try form.commit("detail", text: "secret detail")
        try form.commit("kind", text: "1")  // hides detail again: its value must not reach the document
        try form.commit("name", text: "Ann")
        try form.commit("agree", text: "yes")
        #expect(form.isReady)
        guard case .ready(let draft) = form.submit() else {
            Issue.record("a complete form must submit")
            return
        }
        #expect(draft.fields.map(\.key) == ["name"])
        #expect(draft["name"] == "Ann")
        #expect(draft.plugin == "test.forms")
    }

    @Test("the plugin can refuse a submit, and a repeated document key is a clear failure")
    func pluginRefusals() throws {
        let (runtime, _) = try formsRuntime()
        let form = try runtime.open("forms.all")
        try form.commit("kind", text: "1")
        try form.commit("agree", text: "yes")
        try form.commit("name", text: "Refuse")
        #expect(form.submit() == .needsAttention([AtomIssue(atom: "name", message: "refused by the plugin")]))
        try form.commit("name", text: "Twice")
        guard case .failed(let why) = form.submit() else {
            Issue.record("a repeated key must fail")
            return
        }
        #expect(why.contains("key 'name' is put twice"))
    }

    /// The memory side runs in a process of its own (`plugin check --cycles 10000`, Tests/RBSHostTests): here other
    /// tests share the process and its resident memory.
    @Test("10,000 modules opened and closed free every plugin instance")
    func modulesAreFreed() throws {
        let (runtime, operation) = try formsRuntime()
        func openAndClose(_ count: Int) throws {
            for index in 0..<count {
                let form = try runtime.open("forms.all")
                try form.commit("name", text: "N\(index % 7)")
                if index % 2 == 0 { form.close() }  // the others are freed when the last reference goes away
            }
        }
        try openAndClose(10_000)
        #expect(liveInstances(operation) == 0)
        #expect(operation.plugin.liveModules == 0)
    }
}
