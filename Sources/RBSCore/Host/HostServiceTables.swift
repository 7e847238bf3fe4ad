import CRBSPlugin
import Foundation
import RBSLedger

/// The C tables of the host's own services (rbs/services.h), registered in the ServiceLocator under their versioned
/// ids. Each table's context points at this object; the tables live as long as it does (the host's lifetime).
final class HostServiceTables: @unchecked Sendable {
    private let locator: ServiceLocator
    private let lock = NSLock()
    private let accountsArena = CStringArena()
    private let directoryArena = CStringArena()
    private var cachedAccounts: [Account] = []
    private let cardsArena = CStringArena()
    private var cachedCards: [Card] = []

    private let accountsTable: UnsafeMutablePointer<rbs_accounts_service_t>
    private let directoryTable: UnsafeMutablePointer<rbs_directory_service_t>
    private let cardsTable: UnsafeMutablePointer<rbs_cards_service_t>
    private let logTable: UnsafeMutablePointer<rbs_log_service_t>
    private let clockTable: UnsafeMutablePointer<rbs_clock_service_t>
    private let runTextsTable: UnsafeMutablePointer<rbs_run_texts_service_t>

    init(locator: ServiceLocator) {
        self.locator = locator
        accountsTable = .allocate(capacity: 1)
        directoryTable = .allocate(capacity: 1)
        cardsTable = .allocate(capacity: 1)
        logTable = .allocate(capacity: 1)
        clockTable = .allocate(capacity: 1)
        runTextsTable = .allocate(capacity: 1)
        let context = Unmanaged.passUnretained(self).toOpaque()

        accountsTable.initialize(to: rbs_accounts_service_t(
            context: context,
            count: { context in
                HostCallbackTap.note("accounts->count()")
                guard let tables = HostServiceTables.from(context) else { return 0 }
                return tables.lock.withLock {
                    tables.cachedAccounts = (try? tables.locator.inject((any AccountsService).self).accounts()) ?? []
                    return UInt32(clamping: tables.cachedAccounts.count)
                }
            },
            at: { context, index, out in
                HostCallbackTap.note("accounts->at(\(index))")
                guard let tables = HostServiceTables.from(context), let out else { return false }
                return tables.lock.withLock {
                    if tables.cachedAccounts.isEmpty {
                        tables.cachedAccounts = (try? tables.locator.inject((any AccountsService).self).accounts()) ?? []
                    }
                    guard Int(index) < tables.cachedAccounts.count else { return false }
                    tables.fill(out, with: tables.cachedAccounts[Int(index)])
                    return true
                }
            },
            find: { context, number, out in
                HostCallbackTap.note("accounts->find(\(HostCallbackTap.quoted(number)))")
                guard let tables = HostServiceTables.from(context), let number, let out else { return false }
                let wanted = String(cString: number)
                return tables.lock.withLock {
                    guard let accounts = try? tables.locator.inject((any AccountsService).self).accounts(),
                          let account = accounts.first(where: { $0.number == wanted }) else { return false }
                    tables.fill(out, with: account)
                    return true
                }
            }))

        // The cards are read on `count` and kept for the `at`s that follow it (as the accounts are).
        cardsTable.initialize(to: rbs_cards_service_t(
            context: context,
            count: { context in
                HostCallbackTap.note("cards->count()")
                guard let tables = HostServiceTables.from(context) else { return 0 }
                return tables.lock.withLock {
                    tables.cachedCards = (try? tables.locator.inject((any CardsService).self).cards()) ?? []
                    return UInt32(clamping: tables.cachedCards.count)
                }
            },
            at: { context, index, out in
                HostCallbackTap.note("cards->at(\(index))")
                guard let tables = HostServiceTables.from(context), let out else { return false }
                return tables.lock.withLock {
                    guard Int(index) < tables.cachedCards.count else { return false }
                    let card = tables.cachedCards[Int(index)], arena = tables.cardsArena
                    arena.reset()
                    out.pointee = rbs_card_t(id: arena.keep(String(card.id)), masked: arena.keep(card.masked),
                                             account: arena.keep(card.account), blocked: card.blocked)
                    return true
                }
            }))

        directoryTable.initialize(to: rbs_directory_service_t(
            context: context,
            lookup: { context, bic, out in
                HostCallbackTap.note("directory->lookup(\(HostCallbackTap.quoted(bic)))")
                guard let tables = HostServiceTables.from(context), let bic, let out else { return false }
                return tables.lock.withLock {
                    guard let directory = tables.locator.optional(BankDirectory.self) else { return false }
                    let wanted = String(cString: bic)
                    let bank: Bank
                    switch directory.status(bic: wanted) {
                    case .active(let found):
                        bank = found
                    case .closed(_, let date):
                        // A closed BIC is refused: the plugin sees an unknown BIC, the person reads why.
                        tables.locator.optional((any HostLog).self)?.write(
                            level: .warning, source: "rbs-host",
                            message: "BIC \(wanted) was closed on \(date) (bank directory of \(directory.date)); payments to it are refused")
                        return false
                    case .unknown:
                        return false
                    }
                    let arena = tables.directoryArena
                    arena.reset()
                    out.pointee = rbs_bank_t(bic: arena.keep(bank.bic), name: arena.keep(bank.name),
                                             corr_account: arena.keep(bank.correspondentAccount),
                                             city: arena.keep(bank.city))
                    return true
                }
            }))

        logTable.initialize(to: rbs_log_service_t(
            context: context,
            write: { context, level, source, message in
                HostCallbackTap.note("log->write(\(level), \(HostCallbackTap.quoted(source)), \(HostCallbackTap.quoted(message)))")
                guard let tables = HostServiceTables.from(context), let log = tables.locator.optional((any HostLog).self)
                else { return }
                log.write(level: LogLevel(rawValue: min(level, 3)) ?? .info,
                          source: source.map { String(cString: $0) } ?? "plugin",
                          message: message.map { String(cString: $0) } ?? "")
            }))

        clockTable.initialize(to: rbs_clock_service_t(
            context: context,
            now_unix_ms: { context in
                HostCallbackTap.note("clock->now_unix_ms()")
                guard let tables = HostServiceTables.from(context) else { return 0 }
                return Int64((tables.now.timeIntervalSince1970 * 1000).rounded(.down))
            },
            today: { context, out in
                HostCallbackTap.note("clock->today()")
                guard let tables = HostServiceTables.from(context), let out else { return }
                let text = HostServiceTables.isoDate(tables.now)
                let bytes = Array(text.utf8.prefix(10)) + [0]
                for (index, byte) in bytes.enumerated() { out[index] = CChar(bitPattern: byte) }
            }))

        // The module's own form keeps the variants: the context is not needed, the module names the run.
        runTextsTable.initialize(to: rbs_run_texts_service_t(
            context: context,
            set_caption: { _, module, atom, count, variants in
                HostCallbackTap.note("run_texts->set_caption(\(HostCallbackTap.atom(atom)), \(count) variant(s))")
                guard let atom else { return false }
                return HostServiceTables.runText("set_caption", module, String(cString: atom), count, variants) {
                    $0.pluginSetCaption(atom: String(cString: atom), texts: $1)
                }
            },
            set_error: { _, module, atom, count, variants in
                HostCallbackTap.note("run_texts->set_error(\(HostCallbackTap.atom(atom)), \(count) variant(s))")
                let id = atom.map { String(cString: $0) }
                return HostServiceTables.runText("set_error", module, id, count, variants) { $0.pluginSetError(atom: id, texts: $1) }
            }))

        try? locator.registerTable(UnsafeRawPointer(accountsTable), id: RBS_SERVICE_ACCOUNTS, owner: "rbs-host")
        try? locator.registerTable(UnsafeRawPointer(directoryTable), id: RBS_SERVICE_DIRECTORY, owner: "rbs-host")
        try? locator.registerTable(UnsafeRawPointer(cardsTable), id: RBS_SERVICE_CARDS, owner: "rbs-host")
        try? locator.registerTable(UnsafeRawPointer(logTable), id: RBS_SERVICE_LOG, owner: "rbs-host")
        try? locator.registerTable(UnsafeRawPointer(clockTable), id: RBS_SERVICE_CLOCK, owner: "rbs-host")
        try? locator.registerTable(UnsafeRawPointer(runTextsTable), id: RBS_SERVICE_RUN_TEXTS, owner: "rbs-host")
    }

    private var now: Date { locator.optional((any Clock).self)?.now ?? Date() }

    private func fill(_ out: UnsafeMutablePointer<rbs_account_t>, with account: Account) {
        accountsArena.reset()
        out.pointee = rbs_account_t(number: accountsArena.keep(account.number),
                                    currency: accountsArena.keep(account.currency),
                                    balance: accountsArena.keep(account.balance.plain),
                                    owner: accountsArena.keep(account.owner),
                                    title: accountsArena.keep(account.title), blocked: account.blocked)
    }

    /// One rbs.run-texts/1 call in this process: the variants read from the plugin's pointers and handed to the
    /// module's form, or the refusal logged for the plugin's author.
    private static func runText(_ call: String, _ module: OpaquePointer?, _ atom: String?, _ count: UInt32,
                                _ variants: UnsafePointer<rbs_text_variant_t>?,
                                apply: (any ModuleControl, RunText) -> Bool) -> Bool {
        guard let control = ModuleHandle.from(module)?.control else { return false }
        do throws(RunTextRefusal) { return apply(control, try RunText.read(count: count, variants)) } catch {
            control.pluginRefused(call, atom: atom, error)
            return false
        }
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> HostServiceTables? {
        guard let context else { return nil }
        return Unmanaged<HostServiceTables>.fromOpaque(context).takeUnretainedValue()
    }

    /// "YYYY-MM-DD" in the host's time zone.
    static func isoDate(_ date: Date) -> String {
        let parts = Calendar.current.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }
}
