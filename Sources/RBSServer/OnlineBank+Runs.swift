import Foundation
import RBSCore
import RBSLedger

/// Runs of operations: opening one (each call into a plugin on that plugin's lane), filling its form, pressing its
/// buttons, closing it; a run is found only for its own customer and expires unused.
extension OnlineBank {
    /// Opens a run of `operation` for `customer`, on the plugin's lane.
    /// - Parameter prefill: a template's or a journal entry's values, committed as typed before the form is
    ///   answered: the values the plugin's current version has no atom for are named in `dropped`, the ones it
    ///   refuses now in `refused` (with why), and the form shows what was filled.
    func open(_ operation: String, language: HostLanguage = .en, prefill: FormTemplate? = nil,
              for customer: Customer) async throws(Problem) -> API.Run {
        await expireIdleRuns()
        guard let listing = runtime.registry.operations.first(where: { $0.id == operation }) else {
            throw Problem("unknown-operation", "No such operation", status: 404,
                          detail: "there is no operation '\(operation)' (GET /api/v1/operations lists them)")
        }
        let runtime = self.runtime
        // The version of the plugin this customer gets (a staged rollout's share is chosen by the customer).
        let cohort = Runtime.cohortKey(of: .customer(customer.holderId))
        // Where the run will live, chosen on the plugin's own lane (which loads the plugin if it is not yet): for a
        // plugin in workers, the least busy worker of its pool, whose lane then carries every call of the run — a
        // run never waits for a busy worker other than its own, nor for another plugin.
        let placement = try await onLane(lanes.lane(for: listing.pluginID), for: customer) { () throws(Problem) -> PluginPlacement in
            do throws(RunError) { return try runtime.place(operation, cohort: cohort) } catch {
                throw Problem("cannot-open", "The operation could not be opened", status: 422, detail: error.description)
            }
        }
        let run = ServerRun(id: Self.newRunID(), customer: customer, lane: lanes.lane(for: placement.lane),
                            pluginID: listing.pluginID, now: clock())
        let answer = try await onLane(run) { () throws(Problem) -> API.Run in
            // The form's account pickers read the customer's accounts from the ledger (once a call): a database that
            // cannot be reached is said as itself, not as a form that offers no account.
            do {
                _ = try CustomerScope.current?.accounts()
            } catch CustomerError.storage(.server(let failure)) {
                throw Self.unavailable(failure)
            } catch {}
            let session: FormSession
            do throws(RunError) { session = try runtime.open(at: placement, cohort: cohort) } catch {
                throw Problem("cannot-open", "The operation could not be opened", status: 422, detail: error.description)
            }
            session.language = language
            run.session = session
            run.named(operation: session.operation.id, title: session.operation.descriptor.title)
            var dropped: [String] = [], refused: [Problem.Issue] = []
            if let prefill {
                let (kept, gone) = prefill.split(for: session.operation.descriptor)
                dropped = gone.map(\.id)
                for value in kept {
                    do throws(FormSessionError) { _ = try session.commit(value.id, text: value.value, reader: .script) } catch {
                        refused.append(Problem.Issue(atom: value.id, message: session.describe(error)))
                    }
                }
            }
            var described = Self.describe(run, session)
            described.dropped = dropped.isEmpty ? nil : dropped
            described.refused = refused.isEmpty ? nil : refused
            return described
        }
        var added = runs.add(run, limit: runLimit)
        if !added {
            // At the bound, the customer's least recently used form that holds nothing typed gives its place: a form
            // only looked at is not worth refusing the next one for (a person who opened twenty that way was refused
            // every operation).
            let untouched = runs.all.filter { $0.customer.id == customer.id && $0.id != run.id && $0.state == .open && $0.summary == nil }
            if let oldest = untouched.min(by: { $0.lastUsed < $1.lastUsed }) {
                await close(oldest)
                added = runs.add(run, limit: runLimit)
            }
        }
        guard added else {
            try? await onLane(run) { () throws(Problem) in run.session?.close(); run.session = nil }
            let minutes = Int(runIdle / 60)
            throw Problem("too-many-runs", "Too many open runs", status: 429,
                          detail: language.pick(
                            "you have \(runLimit) forms open with values typed: finish or cancel some (the home page's Continue "
                                + "links lead to them), or wait — a form unused for \(minutes) minutes closes",
                            "у вас открыто \(runLimit) форм с введёнными значениями: завершите или отмените некоторые (к ним ведут "
                                + "ссылки «Продолжить» на главной) или подождите — неиспользуемая форма закрывается через \(minutes) минут"))
        }
        return answer
    }

    /// The run as it is now.
    func show(_ id: String, language: HostLanguage = .en, for customer: Customer) async throws(Problem) -> API.Run {
        let run = try find(id, customer)
        return try await onLane(run) { () throws(Problem) -> API.Run in
            guard let session = run.session else { return Self.describe(run, nil) }
            session.language = language
            return Self.describe(run, session)
        }
    }

    /// The customer's runs, most recently used first: what a reloaded page offers to resume. Each is titled in
    /// `language` (the page's now, which may not be the one the run was opened in), as the operations are.
    func listRuns(of customer: Customer, language: HostLanguage = .en) async -> [API.RunSummary] {
        await expireIdleRuns()
        let registry = runtime.registry
        return runs.all.filter { $0.customer.id == customer.id && $0.state != .cancelled }
            .sorted { $0.lastUsed > $1.lastUsed }
            .map { run in
                let title = registry.listedDescriptor(run.operation)?.localized(language).title ?? run.title
                return API.RunSummary(id: run.id, operation: run.operation, title: title, summary: run.summary, state: run.state.rawValue,
                                      lastUsedAt: Self.iso(run.lastUsed), expiresAt: Self.iso(run.lastUsed.addingTimeInterval(runIdle)))
            }
    }

    /// Closes every run unused for ``runIdle`` seconds (not one being signed): its plugin instance is freed and
    /// the run forgotten, as a cancel does. Called on each open, each listing and each `/health`.
    func expireIdleRuns() async {
        for run in runs.idle(since: clock().addingTimeInterval(-runIdle)) where run.state != .signing {
            await close(run)
        }
    }

    /// Forgets `run` and frees its plugin instance (a cancel, or an expiry); a signed run keeps its state.
    private func close(_ run: ServerRun) async {
        guard runs.remove(run.id) != nil else { return }
        if run.state != .signed { run.set(.cancelled) }
        try? await onLane(run) { () throws(Problem) in
            run.session?.close()
            run.session = nil
            run.sign = nil
        }
    }

    /// Commits `value` to atom `atom`; answers only the atoms that changed. A commit after a submit drops the review.
    func commit(_ value: JSONValue, atom: String, run id: String, language: HostLanguage = .en,
                for customer: Customer) async throws(Problem) -> API.Changes {
        let run = try find(id, customer)
        let events = self.events
        return try await onLane(run) { () throws(Problem) -> API.Changes in
            let session = try Self.editable(run)
            guard let descriptor = session.declaration(of: atom) else {
                throw Problem("unknown-atom", "No such atom", status: 404,
                              detail: "operation \(session.operation.id) has no atom '\(atom)'", atom: atom)
            }
            session.language = language
            let typed = try ValueInput.value(for: value, atom: descriptor, in: session)
            let before = run.rendered(session) ?? Self.atoms(session)
            do throws(FormSessionError) {
                try session.commit(atom, value: typed)
            } catch {
                throw Self.problem(error, atom: atom)
            }
            return Self.changes(run, session, before: before, events: events)
        }
    }

    /// Presses a button atom (the plugin's action).
    func press(atom: String, run id: String, language: HostLanguage = .en, for customer: Customer) async throws(Problem) -> API.Changes {
        let run = try find(id, customer)
        let events = self.events
        return try await onLane(run) { () throws(Problem) -> API.Changes in
            let session = try Self.editable(run)
            session.language = language
            guard session.operation.descriptor.atoms.contains(where: { $0.id == atom }) else {
                throw Problem("unknown-atom", "No such atom", status: 404,
                              detail: "operation \(session.operation.id) has no atom '\(atom)'", atom: atom)
            }
            let before = run.rendered(session) ?? Self.atoms(session)
            do throws(FormSessionError) { try session.press(atom) } catch { throw Self.problem(error, atom: atom) }
            return Self.changes(run, session, before: before, events: events)
        }
    }

    /// Cancels a run: the plugin's instance is freed and the run forgotten.
    func cancel(run id: String, for customer: Customer) async throws(Problem) {
        let run = try find(id, customer)
        guard run.state != .signing else {
            throw Problem("signing", "The run is being signed", status: 409, detail: "a signing of this run is in progress")
        }
        await close(run)
    }

    /// A signed run: its receipt kept (for a retry of `requestId`), its plugin instance closed on its lane.
    func finish(_ run: ServerRun, with receipt: API.Receipt, requestId: String?) async {
        run.finish(receipt, requestId: requestId)
        try? await onLane(run) { () throws(Problem) in
            run.session?.close()
            run.session = nil
            run.sign = nil
        }
    }

    func find(_ id: String, _ customer: Customer) throws(Problem) -> ServerRun {
        guard let run = runs.run(id, of: customer) else {
            throw Problem.notFound("there is no run '\(id)' (runs end when cancelled, \(Int(runIdle / 60)) minutes unused, "
                                   + "or when the server restarts)")
        }
        if run.state != .signing, run.lastUsed < clock().addingTimeInterval(-runIdle) {
            Task { await self.close(run) }
            throw Problem.notFound("run '\(id)' expired: it was not used for \(Int(runIdle / 60)) minutes")
        }
        run.touch(clock())
        return run
    }

    private func scope(_ customer: Customer) -> CustomerScope {
        let ledger = self.ledger
        return CustomerScope(customer: customer, load: { try ledger.customers.accounts(of: customer) },
                             cards: { customer in try ledger.cards(of: .customer(customer.holderId)) })
    }

    /// Runs `body` on the run's plugin lane for the run's customer.
    func onLane<T: Sendable>(_ run: ServerRun, _ body: @escaping @Sendable () throws(Problem) -> T) async throws(Problem) -> T {
        try await onLane(run.lane, for: run.customer, body)
    }

    /// Runs `body` on `lane` for `customer`.
    func onLane<T: Sendable>(_ lane: PluginLane, for customer: Customer,
                             _ body: @escaping @Sendable () throws(Problem) -> T) async throws(Problem) -> T {
        do {
            return try await lane.run(for: scope(customer)) { try body() }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw .internalError("\(error)")
        }
    }

    static func editable(_ run: ServerRun) throws(Problem) -> FormSession {
        guard let session = run.session, !session.isClosed else {
            throw Problem("run-finished", "The run is finished", status: 409,
                          detail: "this run was \(run.state == .signed ? "signed" : "closed"); open a new run")
        }
        guard run.state == .open || run.state == .review else {
            throw Problem("signing", "The run is being signed", status: 409, detail: "a signing of this run is in progress")
        }
        if run.state == .review {
            run.sign = nil
            run.set(.open)
        }
        return session
    }

    private static func problem(_ error: FormSessionError, atom: String) -> Problem {
        switch error {
        case .unknownAtom: Problem("unknown-atom", "No such atom", status: 404, detail: error.description, atom: atom)
        case .invalid(_, let message): Problem("invalid-value", "The value is not accepted", status: 422, detail: message, atom: atom)
        case .mismatch: Problem("wrong-type", "The value has the wrong type for this atom", status: 422, detail: error.description, atom: atom)
        case .hidden: Problem("hidden-atom", "The atom is hidden", status: 409, detail: error.description, atom: atom)
        case .notEditable, .notAButton: Problem("not-editable", "This atom cannot be changed so", status: 422, detail: error.description, atom: atom)
        case .closed: Problem("run-finished", "The run is finished", status: 409, detail: error.description)
        case .createFailed, .badPluginValue, .pluginFailed, .pluginFault:
            Problem("plugin-failed", "The operation's plugin failed", status: 422, detail: error.description, atom: atom)
        }
    }

    private static func atoms(_ session: FormSession) -> [API.Atom] { rendered(session).atoms }

    /// The form's atoms as the API shows them, and its one-line summary made from the same states (a commit's
    /// answer computes the form's state once).
    private static func rendered(_ session: FormSession) -> (atoms: [API.Atom], summary: String?) {
        let states = session.atoms
        return (states.map { ValueInput.json($0, accounts: $0.kind == .account ? session.accounts(for: $0.id) : []) },
                FormSession.summary(of: states, language: session.language))
    }

    private static func describe(_ run: ServerRun, _ session: FormSession?) -> API.Run {
        guard let session else {
            return API.Run(id: run.id, operation: run.operation, title: run.title, plugin: run.pluginID, pluginVersion: "",
                           state: run.state.rawValue, ready: false, formError: nil, atoms: [], receipt: run.receipt)
        }
        let (atoms, summary) = rendered(session)
        run.keep(summary: summary)
        return API.Run(id: run.id, operation: session.operation.id, title: session.operation.descriptor.title,
                       plugin: session.operation.plugin.id, pluginVersion: session.operation.plugin.version,
                       state: run.state.rawValue, ready: session.isReady, formError: session.formError, atoms: atoms)
    }

    private static func changes(_ run: ServerRun, _ session: FormSession, before: [API.Atom], events: EventHub) -> API.Changes {
        let (after, summary) = rendered(session)
        // What the next commit's answer is compared with, while the form stays as it is now.
        run.keep(after, of: session)
        run.keep(summary: summary)
        var changed: [API.Atom] = []
        for (old, new) in zip(before, after) where old != new {
            changed.append(new)
            if old.caption != new.caption, new.kind == "text" {
                events.publish(ServerEvent(name: "caption", data: ["run": run.id, "atom": new.id, "caption": new.caption]),
                               to: run.customer.id)
            }
        }
        return API.Changes(changed: changed, ready: session.isReady, formError: session.formError)
    }

    static func newRunID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
