import Foundation
import RBSCore
import RBSLedger

extension OnlineBank {
    /// Makes a signing basket of the customer's reviewed runs (each submitted, in the order given): the basket's
    /// review — every document's amount, payee and labelled fields, what the core would refuse now, the total per
    /// currency and the basket id (the hash the one code authorises).
    func basket(of runIds: [String], for customer: Customer) async throws(Problem) -> API.BasketReview {
        guard !runIds.isEmpty else {
            throw Problem("empty-basket", "The basket is empty", status: 422, detail: BasketError.empty.description, atom: "runs")
        }
        guard runIds.count <= Basket.maximumDocuments else {
            throw Problem("too-many-documents", "Too many documents", status: 422, detail: BasketError.tooMany(runIds.count).description, atom: "runs")
        }
        if let repeated = runIds.enumerated().first(where: { runIds.firstIndex(of: $0.element) != $0.offset }) {
            throw Problem("repeated-run", "A run is given twice", status: 422,
                          detail: "run \(repeated.element) is given twice; each document is signed once", atom: "runs")
        }
        var runs: [ServerRun] = []
        var drafts: [DocumentDraft] = []
        for id in runIds {
            let run = try find(id, customer)
            let draft: DocumentDraft? = try await onLane(run) { () throws(Problem) -> DocumentDraft? in
                run.state == .review ? run.sign?.draft : nil
            }
            guard let draft else {
                throw Problem("not-submitted", "A run is not reviewed", status: 409,
                              detail: "run \(id) is not submitted (or was changed since): submit it (POST /api/v1/runs/\(id)/submit), then make the basket")
            }
            runs.append(run)
            drafts.append(draft)
        }
        let ledger = self.ledger
        let credentials = try Self.credentials(of: customer, in: ledger)
        let directory = runtime.locator.optional(BankDirectory.self)
        let module: BasketStep
        let collected = drafts
        do {
            module = try await Self.blocking {
                BasketStep(module: try BasketModule(drafts: collected, ledger: ledger, directory: directory, customer: credentials))
            }
        } catch let error as LedgerError {
            if case .code(let code) = error {
                throw Problem("signing-method", "This customer cannot sign a basket so", status: 409, detail: code.description)
            }
            if let unusable = Self.unusableLedger(error) { throw unusable }
            throw Problem("invalid-basket", "The basket cannot be made", status: 422, detail: error.description, atom: "runs")
        } catch {
            throw .internalError("\(error)")
        }
        if module.module.allRefused, let first = module.module.refusals.compactMap({ $0 }).first { throw Self.refusedProblem(first) }
        let basket = ServerBasket(customer: customer, runs: runs, module: module.module)
        baskets.add(basket)
        return Self.review(basket, runIds: runIds)
    }

    /// Checks the customer's one code and signs the basket: each document posted or rejected on its own, all in one
    /// transaction; answers each document's receipt in the basket's order. With `requestId`, a retry answers the
    /// first receipts and never posts twice.
    ///
    /// A document that repeats a payment posted in the last 24 hours (asked now, not at the review: one may have been
    /// posted since) is answered 409 `duplicate`, naming it, before the code is looked at, unless `confirmDuplicate`.
    func signBasket(_ id: String, code: String, requestId: String? = nil, confirmDuplicate: Bool = false, address: String,
                    for customer: Customer) async throws(Problem) -> API.BasketReceipt {
        guard let basket = baskets.basket(id, of: customer) else {
            throw Problem.notFound("there is no basket '\(id)' (make one with POST /api/v1/baskets; baskets end when the server restarts)")
        }
        let request = try Self.request(requestId, of: customer)
        if let requestId, basket.state == .signed, basket.requestId == requestId, let receipt = basket.receipt { return receipt }
        let keys = Self.codeKeys(customer, address)
        try await checkCodeAttempts(keys)
        guard basket.transition(from: .review, to: .signing) else {
            throw Problem("already-signed", "The basket is already signed", status: 409,
                          detail: basket.state == .signed ? "this basket was signed (its documents are journaled); make a new one"
                              : "a signing of this basket is in progress")
        }
        signingStarted()
        defer { signingEnded() }
        // Every run must still hold the document the basket was made of (a value changed since drops its review).
        for (run, draft) in zip(basket.runs, basket.module.drafts) {
            let same = (try? await onLane(run) { () throws(Problem) -> Bool in run.state == .review && run.sign?.draft == draft }) ?? false
            guard same else {
                basket.set(.review)
                throw Problem("basket-changed", "A document of the basket changed", status: 409,
                              detail: "run \(run.id) was changed, signed or cancelled after the basket was made; submit the runs again and make a new basket")
            }
        }
        let step = BasketStep(module: basket.module)
        let outcome: BasketOutcome
        do {
            // The duplicate rule is the core's: a repeat of a posted payment or of another document of the basket
            // comes back as a 409 `duplicate` (asked now, not at the review) unless confirmed.
            outcome = try await Self.blocking { try step.module.sign(code: code, request: request, confirmDuplicate: confirmDuplicate) }
        } catch let error as LedgerError {
            basket.set(.review)
            throw await codeProblem(error, keys: keys)
        } catch {
            basket.set(.review)
            throw .internalError("\(error)")
        }
        await clearAttempts(keys)
        let receipts = outcome.outcomes.map(Self.receipt(of:))
        // The core's word for the whole: a basket whose documents all await the second signer is not "rejected".
        let receipt = API.BasketReceipt(basket: outcome.basketId, status: outcome.status.rawValue,
                                        totals: outcome.list.totals.map { API.BasketTotal(currency: $0.currency, amount: $0.amount) },
                                        receipts: receipts)
        basket.finish(receipt, requestId: requestId)
        for (run, document) in zip(basket.runs, receipts) { await finish(run, with: document, requestId: nil) }
        return receipt
    }

    private static func review(_ basket: ServerBasket, runIds: [String]) -> API.BasketReview {
        let module = basket.module
        let documents = zip(module.documents(in: .en), zip(runIds, module.basket.documents)).enumerated().map { index, element in
            let (reviewed, (run, document)) = element
            let payment = Payment.of(document)
            return API.BasketDocument(run: run, operation: reviewed.operation, documentHash: document.id,
                                      amount: payment?.amount.plain, currency: payment?.amount.currency.code,
                                      fee: payment?.fee?.plain, totalDebited: payment?.fee.map { _ in payment?.totalDebited.plain } ?? nil, payee: payment?.payee.name,
                                      payeeAccount: payment?.creditAccount,
                                      fields: reviewed.lines.map { API.ReviewLine(caption: $0.caption, value: $0.value, prominent: $0.prominent) },
                                      refusal: reviewed.refusal?.message,
                                      duplicate: module.repeats[index].map { duplicateProblem(Duplicate(position: index + 1, of: $0), repeating: document).duplicate } ?? nil)
        }
        return API.BasketReview(basket: module.basket.id, documents: documents,
                                totals: module.basket.totals.map { API.BasketTotal(currency: $0.currency, amount: $0.amount) },
                                method: module.method.rawValue)
    }
}

/// A basket's sign step handed between threads: immutable once made, and one signing of a basket at a time.
struct BasketStep: @unchecked Sendable {
    let module: BasketModule
}
