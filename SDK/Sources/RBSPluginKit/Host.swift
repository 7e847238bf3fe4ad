import CRBSPlugin

/// A bank from the host's directory.
public struct BankInfo: Sendable, Equatable {
    public var bic: String
    public var name: String
    public var correspondentAccount: String
    public var city: String
}

/// One of the customer's accounts.
public struct AccountInfo: Sendable, Equatable {
    public var number: String
    public var currency: String
    public var balance: String
    public var owner: String
    public var title: String
    public var blocked: Bool
}

/// The host's services, as a Swift author sees them. Every lookup can fail: a missing service gives nil.
public struct Host: @unchecked Sendable {
    let raw: UnsafePointer<rbs_host_t>?

    init(_ raw: UnsafePointer<rbs_host_t>?) { self.raw = raw }

    /// The C table of a service by versioned id ("rbs.directory/1"), or nil.
    public func service(_ id: String) -> UnsafeRawPointer? {
        guard let raw, let lookup = raw.pointee.get_service else { return nil }
        return lookup(raw, id)
    }

    /// The bank with this BIC, from the host's directory; nil when unknown or when there is no directory.
    public func bank(bic: String) -> BankInfo? {
        guard let table = service(RBS_SERVICE_DIRECTORY)?.assumingMemoryBound(to: rbs_directory_service_t.self),
              let lookup = table.pointee.lookup else { return nil }
        var bank = rbs_bank_t()
        guard lookup(table.pointee.context, bic, &bank) else { return nil }
        return BankInfo(bic: string(bank.bic), name: string(bank.name), correspondentAccount: string(bank.corr_account),
                        city: string(bank.city))
    }

    /// The customer's accounts; empty when the service is missing.
    public func accounts() -> [AccountInfo] {
        guard let table = service(RBS_SERVICE_ACCOUNTS)?.assumingMemoryBound(to: rbs_accounts_service_t.self),
              let count = table.pointee.count, let at = table.pointee.at else { return [] }
        var result: [AccountInfo] = []
        for index in 0..<count(table.pointee.context) {
            var account = rbs_account_t()
            if at(table.pointee.context, index, &account) { result.append(Self.info(account)) }
        }
        return result
    }

    /// The account with this number, or nil.
    public func account(number: String) -> AccountInfo? {
        guard let table = service(RBS_SERVICE_ACCOUNTS)?.assumingMemoryBound(to: rbs_accounts_service_t.self),
              let find = table.pointee.find else { return nil }
        var account = rbs_account_t()
        guard find(table.pointee.context, number, &account) else { return nil }
        return Self.info(account)
    }

    /// Writes a line to the host's log.
    public func log(_ message: String, level: Int32 = Int32(RBS_LOG_INFO)) {
        guard let raw, let log = raw.pointee.log else { return }
        log(raw, UInt32(level), message)
    }

    private static func info(_ account: rbs_account_t) -> AccountInfo {
        AccountInfo(number: string(account.number), currency: string(account.currency),
                    balance: string(account.balance), owner: string(account.owner), title: string(account.title),
                    blocked: account.blocked)
    }
}

private func string(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
