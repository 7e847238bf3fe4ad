import Foundation
import Testing

/// `describe` over pay.pp.quick: input types, lengths, lookups, valid-if, show-if, and the describe JSON contract.
@Suite("describe pay.pp.quick")
struct DescribeQuickTests {
    /// Every required atom filled with good values, in the order a person would.
    static let complete = [
        "srcAccount=\(Demo.current)", "destName=ООО Ромашка", "destAccount=\(Demo.external)", "destBic=\(Demo.bic)",
        "destDesc=оплата по счёту 7", "amount=100",
    ]

    @Test("real requisites: a bank's correspondent account and client accounts, a treasury account at a treasury BIC", arguments: [
        ("044525225", "40702810938000000001", "ПАО Сбербанк"),
        ("044525593", "30101810200000000593", "АО «Альфа-Банк»"),  // the bank's own correspondent account (division rule)
        ("044525593", "40702810801300000001", "АО «Альфа-Банк»"),
        ("004525988", "03100643000000017300", "ГУ Банка России по ЦФО//УФК по г. Москве"),
        ("017003983", "03100643000000018500", "ОТДЕЛЕНИЕ ТУЛА БАНКА РОССИИ//УФК по Тульской области"),
    ])
    func realRequisites(bic: String, account: String, bank: String) throws {
        let form = try HostSandbox().describe("pay.pp.quick", Self.complete.filter { !$0.hasPrefix("dest") }
            + ["destName=ООО Ромашка", "destDesc=оплата по счёту 7", "destBic=\(bic)", "destAccount=\(account)"])
        #expect(form["destBicInfo"].caption == bank)
        #expect(form["destAccount"].error == nil)
        #expect(form.ready, "\(form.atoms.filter { $0.error != nil })")
    }

    @Test("describe --json: operation, atoms with exactly {id, kind, caption, visible, value, error}, ready; the initial form")
    func contract() throws {
        let sandbox = try HostSandbox()
        let result = try sandbox.host(["describe", "pay.pp.quick", "--json"])
        #expect(result.status == 0)
        let object = try #require(try jsonObject(result.stdout) as? [String: Any])
        #expect(keys(object).isSuperset(of: ["operation", "atoms", "ready"]))
        #expect(keys(object).isSubset(of: ["operation", "atoms", "ready", "formError"]))
        for atom in object["atoms"] as? [[String: Any]] ?? [] {
            // An account picker also lists its offered accounts (an enum its options, an amount its currency), so a
            // script need not guess.
            let extra: Set<String> = atom["kind"] as? String == "account" ? ["accounts"] : atom["kind"] as? String == "enum" ? ["options"]
                : atom["id"] as? String == "amount" ? ["currency"] : []
            #expect(keys(atom) == Set(["id", "kind", "caption", "visible", "value", "error"]).union(extra), "\(atom)")
        }
        #expect((object["atoms"] as? [[String: Any]])?.first { $0["id"] as? String == "amount" }?["currency"] as? String == "RUB")
        let picker = try #require((object["atoms"] as? [[String: Any]])?.first { $0["id"] as? String == "srcAccount" })
        let offered = try #require(picker["accounts"] as? [[String: Any]])
        #expect(offered.map { $0["position"] as? Int } == [1, 2])
        #expect(offered.map { $0["number"] as? String } == [Demo.current, Demo.savings])
        #expect(offered.first.map(keys) == ["position", "number", "title", "balance", "currency", "blocked"])
        #expect(offered.first?["balance"] as? String == "150000.00")
        let form = try decode(FormJSON.self, result.stdout)
        #expect(form.operation == "pay.pp.quick")
        #expect(form.ready == false)
        #expect(form.atoms.map(\.id) == ["srcAccount", "destName", "destInn", "destInnError", "destKpp", "destAccount",
                                         "destBic", "destBicInfo", "destDesc", "amount", "btnSend"])
        #expect(form.atoms.map(\.kind) == ["account", "input", "input", "text", "input", "input", "input", "text", "input",
                                           "input", "button"])
        #expect(form.atoms.allSatisfy { $0.value == nil && $0.error == nil })
        // Only the INN note is hidden at first (an empty INN counts as correct).
        #expect(form.atoms.filter { !$0.visible }.map(\.id) == ["destInnError"])
        #expect(form["destBicInfo"].caption == "Enter the BIC: the bank is found automatically")
        #expect(form["destName"].caption == "Payee's full name or organisation name")
    }

    @Test("formError is always a key of describe --json (null when the form has none), like every atom's error")
    func formErrorKeyAlwaysPresent() throws {
        let sandbox = try HostSandbox()
        let result = try sandbox.host(["describe", "pay.pp.quick", "--json"])
        let object = try #require(try jsonObject(result.stdout) as? [String: Any])
        #expect(keys(object) == ["operation", "atoms", "ready", "formError"])
        #expect(object["formError"] is NSNull)
    }

    @Test("letters in digit fields: the error names the character and its position; the value is not taken", arguments: [
        ("destInn", "12a4", "digits only: 'a' at position 3 is not allowed"),
        ("destAccount", "4081781043800000000X", "digits only: 'X' at position 20 is not allowed"),
        ("destBic", "04452522Б", "digits only: 'Б' at position 9 is not allowed"),
    ])
    func lettersInDigitFields(atom: String, value: String, message: String) throws {
        let form = try HostSandbox().describe("pay.pp.quick", ["\(atom)=\(value)"])
        #expect(form[atom].error == message)
        #expect(form[atom].value == nil)
        #expect(form.ready == false)
    }

    @Test("lengths: a 21-digit account is too long, a 19-digit one too short, an 8-digit BIC too short")
    func lengths() throws {
        let sandbox = try HostSandbox()
        let long = try sandbox.describe("pay.pp.quick", ["destAccount=408178104380000000011"])
        #expect(long["destAccount"].error == "too long: 21 characters, at most 20 allowed")
        #expect(long["destAccount"].value == nil)
        let short = try sandbox.describe("pay.pp.quick", ["destAccount=4081781043800000000", "destBic=04452522"])
        #expect(short["destAccount"].error?.hasPrefix("too short") == true, "\(short["destAccount"])")
        #expect(short["destBic"].error?.hasPrefix("too short") == true, "\(short["destBic"])")
    }

    @Test("a known BIC fills destBicInfo with the bank's name")
    func knownBic() throws {
        let sandbox = try HostSandbox()
        let form = try sandbox.describe("pay.pp.quick", ["destBic=044525225"])
        #expect(form["destBic"] == AtomJSON(id: "destBic", kind: "input", caption: "BIC", visible: true, value: "044525225", error: nil))
        #expect(form["destBicInfo"].caption == "ПАО Сбербанк")
        #expect(form["destBicInfo"].visible)
        let spb = try sandbox.describe("pay.pp.quick", ["destBic=044030653"])
        #expect(spb["destBicInfo"].caption == "Северо-Западный банк ПАО Сбербанк")
    }

    @Test("an unknown BIC is an error on destBic and empties destBicInfo, also after a known one")
    func unknownBic() throws {
        let sandbox = try HostSandbox()
        let form = try sandbox.describe("pay.pp.quick", ["destBic=999999999"])
        #expect(form["destBic"].value == "999999999")
        #expect(form["destBic"].error == "Unknown BIC 999999999: check it against the payee's details")
        #expect(form["destBicInfo"].caption == "")
        // RBSPluginKit's showBank writes the mark in English and Russian (rbs.run-texts/1).
        #expect(try sandbox.describe("pay.pp.quick", ["destBic=999999999"], language: "ru")["destBic"].error
                == "БИК 999999999 нет в справочнике банков: сверьте его с реквизитами получателя")
        let after = try sandbox.describe("pay.pp.quick", ["destBic=044525225", "destBic=044525998"])
        #expect(after["destBic"].error == "Unknown BIC 044525998: check it against the payee's details")
        #expect(after["destBicInfo"].caption == "")
        // Fixing it clears the mark and names the bank again.
        let fixed = try sandbox.describe("pay.pp.quick", ["destBic=999999999", "destBic=044525225"])
        #expect(fixed["destBic"].error == nil)
        #expect(fixed["destBicInfo"].caption == "ПАО Сбербанк")
        // An unknown BIC blocks the form even when everything else is filled.
        let complete = try sandbox.describe("pay.pp.quick", Self.complete + ["destBic=999999999"])
        #expect(complete.ready == false)
    }

    @Test("the account's control key must match the BIC, whichever is entered first")
    func accountKey() throws {
        let sandbox = try HostSandbox()
        let message = "The account number does not match the BIC (control key): check both"
        let bicFirst = try sandbox.describe("pay.pp.quick", ["destBic=044525225", "destAccount=40817810438000000009"])
        #expect(bicFirst["destAccount"].error == message)
        #expect(bicFirst["destAccount"].value == "40817810438000000009")
        let accountFirst = try sandbox.describe("pay.pp.quick", ["destAccount=40817810438000000009", "destBic=044525225"])
        #expect(accountFirst["destAccount"].error == message)
        let good = try sandbox.describe("pay.pp.quick", ["destBic=044525225", "destAccount=\(Demo.external)"])
        #expect(good["destAccount"].error == nil)
        // The same account is wrong for another bank's BIC (the key covers the BIC's last three digits).
        let otherBank = try sandbox.describe("pay.pp.quick", ["destBic=044030653", "destAccount=\(Demo.external)"])
        #expect(otherBank["destAccount"].error == message)
        #expect(try sandbox.describe("pay.pp.quick", Self.complete + ["destAccount=40817810438000000009"]).ready == false)
    }

    @Test("required fields: one missing keeps ready false; all filled makes it true; optional INN and KPP may stay empty")
    func required() throws {
        let sandbox = try HostSandbox()
        let complete = try sandbox.describe("pay.pp.quick", Self.complete)
        #expect(complete.ready, "\(complete.atoms.filter { $0.error != nil })")
        #expect(complete.atoms.allSatisfy { $0.error == nil })
        #expect(complete["destInn"].value == nil && complete["destKpp"].value == nil)
        #expect(complete["amount"].value == "100.00")
        // The purpose's first letter is capitalised, and nothing after it: a period in a payment's text is an
        // abbreviation's, an address's or a number's (the host once made "в т.Ч." and "mail.Ru" of these).
        #expect(complete["destDesc"].value == "Оплата по счёту 7")
        let typed = "оплата по дог. №5 от 01.02.2026, в т.ч. ндс 20%. возврат по письму ivanov@mail.ru, г.н. а123вс77"
        let kept = try sandbox.describe("pay.pp.quick", Self.complete.filter { !$0.hasPrefix("destDesc=") } + ["destDesc=" + typed])
        #expect(kept["destDesc"].value == "О" + typed.dropFirst())
        // A letter whose capital is not one letter is left as typed (ß → "SS", ﬁ → "FI"); ǆ takes its title case ǅ.
        for (typed, shown) in [("ßtraße 5", "ßtraße 5"), ("ﬁle 7", "ﬁle 7"), ("ǆemal 3", "ǅemal 3")] {
            let form = try sandbox.describe("pay.pp.quick", Self.complete.filter { !$0.hasPrefix("destDesc=") } + ["destDesc=" + typed])
            #expect(form["destDesc"].value == shown, "\(typed)")
        }
        for (index, assignment) in Self.complete.enumerated() {
            var partial = Self.complete
            partial.remove(at: index)
            let form = try sandbox.describe("pay.pp.quick", partial)
            #expect(form.ready == false, "ready without \(assignment)")
        }
        // Clearing a required field after filling it makes the form not ready again.
        let cleared = try sandbox.describe("pay.pp.quick", Self.complete + ["destName="])
        #expect(cleared.ready == false)
        #expect(cleared["destName"].value == nil)
    }

    @Test("isDestInnCorrect == NO shows destInnError for a bad INN and hides it for a good or empty one", arguments: [
        ("1234567890", false), ("123456789048", false), ("12345", false), ("1234567894", true), ("123456789047", true),
        // Zeros satisfy the check digits, but 00 is no region's code.
        ("0000000000", false), ("000000000000", false),
    ])
    func innNote(inn: String, valid: Bool) throws {
        let sandbox = try HostSandbox()
        let form = try sandbox.describe("pay.pp.quick", Self.complete + ["destInn=\(inn)"])
        #expect(form["destInn"].value == inn)
        #expect(form["destInnError"].visible == !valid)
        #expect(form["destInn"].error == (valid ? nil : "The INN is wrong: its first two digits (the region's code) are never 00 and its check digits must match; see the note under the field"))
        #expect(form.ready == valid)
        // Emptying it again: an empty INN counts as correct, the note goes.
        let emptied = try sandbox.describe("pay.pp.quick", Self.complete + ["destInn=\(inn)", "destInn="])
        #expect(emptied["destInnError"].visible == false)
        #expect(emptied["destInn"].error == nil)
        #expect(emptied.ready)
    }

    @Test("a bad INN then a good one hides the note again")
    func innFixed() throws {
        let form = try HostSandbox().describe("pay.pp.quick", ["destInn=1234567890", "destInn=1234567894"])
        #expect(form["destInnError"].visible == false)
        #expect(form["destInn"].error == nil)
    }

    @Test("the source account picker offers only unblocked RUB accounts, by number or by position")
    func sourcePicker() throws {
        let sandbox = try HostSandbox()
        // The person's own accounts the picker does not offer are named as such (and why, when blocked); another
        // number is not one of theirs.
        for (refused, said) in [(Demo.blocked, "account 3 (\(Demo.blocked)) is blocked and cannot be chosen here — choose one of: "),
                                (Demo.usd, "account 4 (\(Demo.usd)) cannot be chosen here — choose one of: "),
                                ("40817810438000000099", "'40817810438000000099' is not one of the accounts offered: ")] {
            let form = try sandbox.describe("pay.pp.quick", ["srcAccount=\(refused)"])
            #expect(form["srcAccount"].value == nil)
            #expect(form["srcAccount"].error == said + "1) \(Demo.current), 2) \(Demo.savings)")
        }
        #expect(try sandbox.describe("pay.pp.quick", ["srcAccount=2"])["srcAccount"].value == Demo.savings)
        #expect(try sandbox.describe("pay.pp.quick", ["srcAccount=3"])["srcAccount"].error != nil)
    }

    @Test("unknown operation and unknown atom: one line on standard error, nothing on standard output, non-zero exit")
    func unknownNames() throws {
        let sandbox = try HostSandbox()
        let operation = try sandbox.host(["describe", "pay.pp.nope", "--json"])
        #expect(operation.status != 0)
        #expect(operation.stdout.isEmpty)
        #expect(operation.stderrLines.count == 1, "\(operation.stderr)")
        #expect(operation.stderr.contains("pay.pp.nope"))

        let atom = try sandbox.host(["describe", "pay.pp.quick", "--set", "destBic=044525225", "--set", "nosuchAtom=1", "--json"])
        #expect(atom.status != 0)
        #expect(atom.stdout.isEmpty)
        #expect(atom.stderrLines.count == 1, "\(atom.stderr)")
        #expect(atom.stderr.contains("nosuchAtom"))
    }

    @Test("a text atom, a button or a hidden atom takes no value: nothing is stored, the atom says why, exit 0")
    func notEditable() throws {
        let sandbox = try HostSandbox()
        let result = try sandbox.host(["describe", "pay.pp.quick", "--set", "destBicInfo=x", "--set", "btnSend=1",
                                       "--set", "destInnError=y", "--json"])
        #expect(result.status == 0, "\(result)")
        let form = try decode(FormJSON.self, result.stdout)
        #expect(form["destBicInfo"].value == nil)
        #expect(form["destBicInfo"].error == "'destBicInfo' is a text atom and takes no value")
        #expect(form["btnSend"].value == nil)
        #expect(form["btnSend"].error == "'btnSend' is a button atom and takes no value")
        let tax = try sandbox.host(["describe", "pay.pp.tax", "--set", "type=0", "--set", "basis=ТП", "--json"])
        let taxForm = try decode(FormJSON.self, tax.stdout)
        #expect(taxForm["basis"].value == nil)
        #expect(taxForm["basis"].error?.contains("hidden by its show-if condition") == true)
    }
}
