import Foundation
import Testing

/// `rbs-host customers …` through the real binary.
@Suite("customers command")
struct CustomersCommandTests {
    @Test("add prints the password once, the accounts and the otpauth URI; list shows them; code and remove work; mistakes say what to do")
    func addListRemove() throws {
        let sandbox = try HostSandbox()
        let added = try sandbox.host(["customers", "add", "anna"])
        #expect(added.status == 0)
        let lines = added.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Customer:   anna")
        let password = try #require(lines.first { $0.hasPrefix("Password:   ") })
        #expect(password.wholeMatch(of: #/Password:   [A-Za-z0-9]{16}   \(shown once; give it to the customer\)/#) != nil)
        #expect(lines.filter { $0.wholeMatch(of: #/(Accounts:  |           ) 408\d{17} \d+\.\d{2} (RUB|USD)  .+/#) != nil }.count == 3)
        let uri = try #require(lines.last)
        #expect(uri.wholeMatch(of: #/otpauth://totp/rbs-host:anna\?secret=[A-Z2-7]{32}&issuer=rbs-host&algorithm=SHA1&digits=6&period=30/#) != nil)

        let again = try sandbox.host(["customers", "add", "anna"])
        #expect(again.status == 1)
        #expect(again.stderr == "error: a customer or user named 'anna' already exists, or one whose name differs only in case (see `rbs-host customers list`)\n")
        // A name that differs only in case would be a second login a person takes for the first.
        let cased = try sandbox.host(["customers", "add", "ANNA"])
        #expect(cased.status == 1 && cased.stderr.contains("differs only in case"), "\(cased)")
        let bad = try sandbox.host(["customers", "add", "../x"])
        #expect(bad.status == 1 && bad.stderr.contains("cannot be a customer name"))

        let list = try sandbox.host(["customers", "list"])
        #expect(list.stdout.split(separator: "\n").dropFirst(2).first?.hasPrefix("anna  ") == true)
        // Balances as every other table writes amounts: grouped, with the currency (`150,000.00 RUB`, not `150000.00 RUB`).
        #expect(list.stdout.contains(#/ \d{1,3}(,\d{3})*\.\d{2} RUB/#), "\(list.stdout)")
        #expect(!list.stdout.contains(#/\d{4,}\.\d{2} RUB/#), "\(list.stdout)")
        // In the operator's language: Russian headings and amounts as Russian writes them.
        let russian = try sandbox.host(["customers", "list", "--lang", "ru"]).stdout
        #expect(russian.split(separator: "\n").first?.split(separator: " ", omittingEmptySubsequences: true) == ["КЛИЕНТ", "КЛЮЧ", "СЧЕТА"], "\(russian)")
        #expect(russian.contains(#/ \d{1,3}(\s\d{3})*,\d{2} RUB/#), "\(russian)")
        let code = try sandbox.host(["customers", "code", "anna"])
        #expect(code.stdout.wholeMatch(of: #/\d{6}\n/#) != nil)

        #expect(try sandbox.host(["customers", "remove", "anna"]).status == 0)
        #expect(try sandbox.host(["customers", "list"]).stdout == "No customers: add one with `rbs-host customers add NAME`.\n")
        #expect(try sandbox.host(["customers", "list", "--lang", "ru"]).stdout == "Клиентов нет: добавьте клиента командой `rbs-host customers add ИМЯ`.\n")
        let gone = try sandbox.host(["customers", "remove", "anna"])
        #expect(gone.status == 1 && gone.stderr == "error: there is no customer named 'anna' (see `rbs-host customers list`)\n")
    }
}
