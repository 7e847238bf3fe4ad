import CRBSPlugin
import Foundation
@testable import RBSCore
import Testing

private protocol Greeter: AnyObject { func greet() -> String }
private final class EnglishGreeter: Greeter { func greet() -> String { "hello" } }

@Suite("ServiceLocator")
struct ServiceLocatorTests {
    @Test("inject returns what was registered for the type")
    func typedInjection() throws {
        let locator = ServiceLocator()
        locator.register(EnglishGreeter(), as: (any Greeter).self)
        let greeter: any Greeter = try locator.inject()
        #expect(greeter.greet() == "hello")
    }

    @Test("a missing service is an error the caller handles, never a crash")
    func missingService() {
        let locator = ServiceLocator()
        #expect(throws: ServiceError.missing("Greeter")) { _ = try locator.inject((any Greeter).self) }
        #expect(locator.optional((any Greeter).self) == nil)
        #expect(locator.table(id: "rbs.nothing/1") == nil)
    }

    @Test("C tables are found by versioned id; a malformed or taken id is refused")
    func cTables() throws {
        let locator = ServiceLocator()
        let table = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
        defer { table.deallocate() }
        try locator.registerTable(table, id: "ru.bank.rates/1", owner: "ru.bank.plugin")
        #expect(locator.table(id: "ru.bank.rates/1") == UnsafeRawPointer(table))
        #expect(locator.table(id: "ru.bank.rates/2") == nil)
        #expect(throws: ServiceError.taken(id: "ru.bank.rates/1", owner: "ru.bank.plugin")) {
            try locator.registerTable(table, id: "ru.bank.rates/1", owner: "other")
        }
        #expect(throws: ServiceError.malformedID("rates")) { try locator.registerTable(table, id: "rates", owner: "x") }
        locator.removeTables(ownedBy: "ru.bank.plugin")
        #expect(locator.table(id: "ru.bank.rates/1") == nil)
    }

    @Test("the host registers accounts, bank directory, logging and clock for plugins")
    func hostServices() throws {
        let runtime = Fixtures.runtime(plugins: Fixtures.temporaryDirectory())
        for id in [RBS_SERVICE_ACCOUNTS, RBS_SERVICE_DIRECTORY, RBS_SERVICE_LOG, RBS_SERVICE_CLOCK] {
            #expect(runtime.locator.table(id: id) != nil, "\(id) is registered")
        }
        let directory = try #require(runtime.locator.table(id: RBS_SERVICE_DIRECTORY)?
            .assumingMemoryBound(to: rbs_directory_service_t.self))
        var bank = rbs_bank_t()
        #expect(directory.pointee.lookup(directory.pointee.context, "044525225", &bank))
        #expect(String(cString: bank.name) == "ПАО Сбербанк")
        #expect(!directory.pointee.lookup(directory.pointee.context, "000000000", &bank))

        let accounts = try #require(runtime.locator.table(id: RBS_SERVICE_ACCOUNTS)?
            .assumingMemoryBound(to: rbs_accounts_service_t.self))
        #expect(accounts.pointee.count(accounts.pointee.context) == UInt32(DemoAccounts.list.count))
        var account = rbs_account_t()
        #expect(accounts.pointee.at(accounts.pointee.context, 0, &account))
        #expect(String(cString: account.balance) == "125000.00", "with the currency's minor units, as services.h documents")
        #expect(!accounts.pointee.at(accounts.pointee.context, 99, &account))
        #expect(accounts.pointee.find(accounts.pointee.context, "40817840999910004315", &account))
        #expect(String(cString: account.currency) == "USD")
    }

    @Test("when the core cannot be opened the accounts table answers empty, not a crash")
    func accountsMissing() throws {
        let file = Fixtures.temporaryDirectory().appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: file)
        let runtime = Runtime(paths: HostPaths(plugins: "/nonexistent", data: file.appendingPathComponent("data")),
                              log: StandardErrorLog(minimum: .error))
        let accounts = try #require(runtime.locator.table(id: RBS_SERVICE_ACCOUNTS)?
            .assumingMemoryBound(to: rbs_accounts_service_t.self))
        #expect(accounts.pointee.count(accounts.pointee.context) == 0)
    }
}
