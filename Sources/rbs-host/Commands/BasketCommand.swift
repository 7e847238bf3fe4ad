import ArgumentParser
import Foundation
import RBSCore
import RBSLedger

/// `rbs-host basket sign --file FILE …`: several documents signed with one code, without the REPL.
struct BasketCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "basket", abstract: "Sign several documents together with one code (a signing basket).",
        subcommands: [Sign.self])

    /// The basket file: `{"documents": [{"operation": "OP" or "@TEMPLATE", "set": ["ID=VALUE", …]}, …]}` — each
    /// document filled as `run OP --set ID=VALUE …` fills it, in this order.
    struct File: Decodable {
        struct Entry: Decodable {
            var operation: String
            var set: [String]?
        }

        var documents: [Entry]

        static func read(_ path: String) throws(ValidationError) -> File {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw ValidationError("--file \(path): cannot be read (\(error.localizedDescription))")
            }
            do { return try JSONDecoder().decode(File.self, from: data) } catch let DecodingError.keyNotFound(key, context) {
                throw ValidationError("--file \(path): \(Self.place(context)) has no \"\(key.stringValue)\" — expected {\"documents\": [{\"operation\": \"OP\", \"set\": [\"ID=VALUE\", …]}, …]}")
            } catch let DecodingError.typeMismatch(_, context) {
                throw ValidationError("--file \(path): \(Self.place(context)) has the wrong type — \"operation\" is text, \"set\" a list of \"ID=VALUE\" texts")
            } catch {
                throw ValidationError("--file \(path): not JSON of the form {\"documents\": [{\"operation\": \"OP\", \"set\": [\"ID=VALUE\", …]}, …]}")
            }
        }

        private static func place(_ context: DecodingError.Context) -> String {
            var words: [String] = []
            for key in context.codingPath {
                if let index = key.intValue { words.append("document \(index + 1)") } else if key.stringValue != "documents" { words.append(key.stringValue) }
            }
            return words.isEmpty ? "the file" : words.joined(separator: ", ")
        }
    }

    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign", abstract: "Fill every document of a basket file, review them together and sign them with one code.",
            discussion: """
                FILE: {"documents": [{"operation": "pay.pp.quick", "set": ["srcAccount=1", "amount=1500.50", …]}, …]}.
                Each document is then posted or rejected on its own; exit 0 only when every document was posted.
                TOTP: --code CODE. OCRA: --challenge prints the basket's challenge (derived from the basket id, which
                covers every amount and payee and the totals) and posts nothing; then --response R --basket ID with
                the same file posts it within 5 minutes.
                """)

        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("The basket file (JSON, see above).", valueName: "FILE")) var file: String
        @Option(help: "TOTP: the 6-digit one-time code.") var code: String?
        @Flag(help: "OCRA: print the basket's review and challenge ({challenge, basket, totals, documents} with --json); post nothing.")
        var challenge = false
        @Option(help: "OCRA: the authenticator's response to the basket's challenge.") var response: String?
        @Option(name: .customLong("basket"), help: ArgumentHelp("With --response: the basket id --challenge printed.", valueName: "ID"))
        var basketId: String?
        @Option(name: .customLong("request-id"),
                help: ArgumentHelp("Sign at most once for ID: a retry with the same ID returns the first outcomes.", valueName: "ID"))
        var requestId: String?
        @Flag(name: .customLong("confirm-duplicate"),
              help: "Sign even when a document repeats a payment posted in the last 24 hours (same payee, account, amount and purpose).")
        var confirmDuplicate = false
        @Flag(help: "Print {status, basket, totals, repeated, documents, errors}.") var json = false

        func validate() throws {
            guard [code != nil, challenge, response != nil].filter({ $0 }).count == 1 else {
                throw ValidationError("give one of --code CODE (TOTP), --challenge or --response R --basket ID (OCRA)")
            }
            if response != nil, basketId == nil { throw ValidationError("--response goes with --basket ID (the id --challenge printed)") }
            if basketId != nil, response == nil { throw ValidationError("--basket goes with --response") }
        }

        func run() throws {
            let file = try File.read(self.file)
            let runtime = try global.makeRuntime(runs: true)
            Listing.printFailures(runtime.registry, language: global.language)
            switch execute(runtime: runtime, file: file) {
            case .challenge(let report, let module):
                if json {
                    JSONOutput.print(report)
                } else {
                    let language = global.language
                    print(([HostMessage.challengeIssued(Terminal.bold(OCRASuite.grouped(report.challenge))).text(language)]
                        + BasketText.review(module, language: language)
                        + [HostMessage.challengeHowTo(report.challenge).text(language),
                           "  rbs-host basket sign --file \(self.file) --response RESPONSE --basket \(report.basket)"]).joined(separator: "\n"))
                }
            case .signed(let report):
                if json { JSONOutput.print(report) } else { print(BasketText.render(report, language: global.language)) }
                // As for run: a payment journaled awaiting its second signature is not a failure.
                if report.status != .posted && report.status != .awaiting { throw ExitCode.failure }
            }
        }

        /// `--challenge --json`: the basket's challenge with what it covers; nothing is posted.
        struct ChallengeReport: Encodable {
            var challenge: String
            var basket: String
            var totals: [BasketTotal]
            var documents: [RunReport.DocumentJSON]
        }

        private enum Execution {
            case signed(BasketReport)
            case challenge(ChallengeReport, BasketModule)
        }

        private func execute(runtime: Runtime, file: File) -> Execution {
            func invalid(_ message: String, document: Int? = nil, atom: String? = nil, basket: Basket? = nil) -> Execution {
                .signed(.invalid([BasketReport.Issue(document: document, atom: atom, message: message)], basket: basket))
            }
            let ledger: Ledger
            do { ledger = try runtime.ledger() } catch { return invalid(error.description) }
            var request: LedgerRequest?
            if let requestId {
                do {
                    request = try LedgerRequest(id: requestId)
                    if let request, let first = try ledger.basketOutcome(of: request) {
                        return .signed(BasketReport(outcome: first, documents: [], ledger: ledger, language: global.language))
                    }
                } catch {
                    return invalid(String(describing: error))
                }
            }
            guard !file.documents.isEmpty else { return invalid(BasketError.empty.description) }
            var drafts: [DocumentDraft] = []
            var issues: [BasketReport.Issue] = []
            for (index, entry) in file.documents.enumerated() {
                var assignments: [Assignment] = []
                for text in entry.set ?? [] {
                    do { assignments.append(try Assignment(parsing: text)) } catch {
                        issues.append(.init(document: index + 1, atom: nil, message: error.message))
                    }
                }
                switch FormFill.draft(runtime: runtime, operation: entry.operation, assignments: assignments) {
                case .success(let draft): drafts.append(draft)
                case .failure(let refused):
                    issues += zip(refused.issues, refused.named).map {
                        .init(document: index + 1, atom: $0.atom, message: $0.message, named: $1)
                    }
                }
            }
            guard issues.isEmpty else { return .signed(.invalid(issues)) }
            do {
                switch (try ledger.authenticator().method, code) {
                case (.ocra, .some):
                    throw LedgerError.code(.wrongMethod(enrolled: .ocra, detail: "ask for the basket's challenge with --challenge, then sign it with --response R --basket ID"))
                case (.totp, nil):
                    throw LedgerError.code(.wrongMethod(enrolled: .totp, detail: "its code is not bound to the basket; sign with --code CODE (or enrol OCRA: `rbs-host keys init --method ocra --force`)"))
                default: break
                }
                let directory = runtime.locator.optional(BankDirectory.self)
                let module = try BasketModule(drafts: drafts, ledger: ledger, directory: directory,
                                              answering: try basketId.map { id throws(LedgerError) in try ledger.pendingBasket(id: id) })
                // The core's own check before a challenge is issued or a code looked at: not one code is spent on a
                // basket whose every document it would refuse. A document it would refuse among others is signed
                // and journaled as rejected, on its own.
                if module.allRefused {
                    return .signed(.invalid(module.refusals.enumerated().compactMap { index, refusal in
                        refusal.map { .init(document: index + 1, atom: nil, message: LedgerError.wouldBeRejected($0).description) }
                    }, basket: module.basket))
                }
                // A payment that repeats one posted in the last 24 hours, or an earlier document of the basket, is signed
                // only when the person says so (the core refuses it otherwise; said here before a challenge is issued).
                let repeats = module.repeats.enumerated().compactMap { index, of in
                    of.map { BasketReport.Issue(document: index + 1, atom: nil, message: SignModule.repeatNotice($0)
                        + "; nothing was signed or posted — sign the basket again with --confirm-duplicate to post it anyway") }
                }
                if !repeats.isEmpty, !confirmDuplicate { return .signed(.invalid(repeats, basket: module.basket)) }
                if challenge {
                    let issued = try module.issueChallenge()
                    return .challenge(ChallengeReport(challenge: issued, basket: module.basket.id, totals: module.basket.totals,
                                                      documents: module.basket.documents.map(RunReport.document)), module)
                }
                let outcome = try module.sign(code: code ?? response ?? "", request: request, confirmDuplicate: confirmDuplicate)
                return .signed(BasketReport(outcome: outcome, documents: module.basket.documents, ledger: ledger,
                                            language: global.language))
            } catch let error as LedgerError {
                return invalid(error.description)
            } catch {
                return invalid(String(describing: error))
            }
        }
    }
}
