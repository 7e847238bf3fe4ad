import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import RBSCore
import RBSLedger

/// An account's statement for a period, made by the core (``Ledger/statement(account:period:customer:)``: only the
/// customer's own account) and written by the core's ``StatementFormat`` as JSON or as a PDF.
extension OnlineBank {
    func statement(of number: String, period: StatementPeriod, for customer: Customer,
                   language: HostLanguage = .en) async throws(Problem) -> AccountStatement {
        let ledger = self.ledger
        do {
            return try await Self.blocking { try ledger.statement(account: number, period: period, customer: customer) }
        } catch let error as StatementError {
            switch error {
            // Another customer's account is not said to exist.
            case .unknownAccount, .notYours:
                throw Problem.notFound(language.pick("account \(number) is not one of this customer's accounts",
                                                     "счёта \(number) нет среди счетов этого клиента"))
            case .emptyPeriod: throw PeriodQuery.problem(error.description)
            case .doesNotReconcile: throw Problem.internalError(error.description)
            case .storage(let inner): throw Self.storageProblem("the statement could not be made", inner)
            }
        } catch {
            throw Self.storageProblem("the statement could not be made", error)
        }
    }
}

extension Routes {
    static func statementRoutes(_ api: RouterGroup<APIContext>, bank: OnlineBank) {
        api.get("/accounts/:account/statement") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let statement = try await bank.statement(of: try parameter(context, "account"), period: try PeriodQuery(request).statementPeriod,
                                                         for: who, language: language(request))
                return json(StatementFormat.json(statement))
            }
        }
        // The same statement as a PDF to keep or print, in the request's language; `tz` (an IANA zone, the browser's)
        // says in which zone its days and times are written (default: the server's).
        api.get("/accounts/:account/statement.pdf") { request, context in
            try await answer {
                let who = try await customer(request, bank)
                let number = try parameter(context, "account")
                let period = try PeriodQuery(request).statementPeriod
                var zone = TimeZone.current
                if let name = request.uri.queryParameters["tz"].map(String.init), !name.isEmpty {
                    guard let named = TimeZone(identifier: name) else {
                        throw PeriodQuery.problem("tz=\(name) is not a time zone (an IANA name such as Europe/Moscow)")
                    }
                    zone = named
                }
                let statement = try await bank.statement(of: number, period: period, for: who, language: language(request))
                let pdf: Data
                do throws(ReceiptError) {
                    pdf = try StatementFormat.pdf(statement, language: language(request), timeZone: zone)
                } catch {
                    throw Problem.internalError(error.description)
                }
                return Routes.pdf(pdf, named: "statement-\(number).pdf")
            }
        }
    }
}
