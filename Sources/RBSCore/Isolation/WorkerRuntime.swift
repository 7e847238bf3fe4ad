import CRBSPlugin
import Foundation
import RBSExpressions
import RBSLedger

/// Serves one plugin version's modules in a pool of worker processes (`rbs-host worker`): every callback crosses
/// the socket, every call the plugin makes back into its host table comes back the same way and reaches its module
/// through `ModuleControl`, like in-process.
///
/// The pool has `IsolationSettings.workers(for:)` places, each filled with a worker when a run first needs it. A run
/// starts on the least busy place (fewest runs; a running worker before a place still to be filled) and stays there:
/// its plugin instance, and whatever state the plugin keeps beside it, lives in that worker. One worker serves one
/// call at a time (the ABI's promise to the plugin), so a slow or hung call holds up only the runs on its worker;
/// the pool's bookkeeping (`lock`) is never held across a call or a spawn, so other workers, other plugins and the
/// listing (`quarantine`) never wait for it.
///
/// A fault ends only the modules its worker served; the next run placed there starts a fresh worker. A plugin whose
/// workers fault `quarantineAfter` times within the window (each dead worker counted once) is quarantined: its runs
/// are refused with the reason until its file changes (a new file is a new runtime).
final class WorkerRuntime: PluginRuntime, @unchecked Sendable {
    let pluginID: String
    private let image: String
    private let settings: IsolationSettings
    private let locator: ServiceLocator
    /// The pool's bookkeeping: places, module ids, faults, quarantine. Never held across a round trip or a spawn.
    private let lock = NSLock()
    private let places: [WorkerPlace]
    private var controls: [UInt32: WeakControl] = [:]
    private var nextModule: UInt32 = 1
    private var faults: [ContinuousClock.Instant] = []
    /// Why this plugin's runs are refused, once it is quarantined.
    private var quarantineReason: String?
    var quarantine: String? {
        lock.lock()
        defer { lock.unlock() }
        return quarantineReason
    }
    /// Modules open now and placements not yet opened, so the last one to close on a retired version can stop its
    /// workers.
    private var live = 0
    private var retired = false
    /// The state the previous version handed over (rbs.state/1), given to every worker this version starts.
    private var handedOver: Data?
    /// The workers this runtime started, the latest `traceLimit` (see `WorkerTrace`).
    private var traces: [WorkerTrace] = []
    private static let traceLimit = 4096
    /// Names this runtime's lanes apart from an earlier version's.
    private let generation: Int

    private static let generations = NSLock()
    nonisolated(unsafe) private static var lastGeneration = 0

    private struct WeakControl {
        weak var control: (any ModuleControl)?
    }

    /// Internal (not private) for the worker-wire fuzz target, which serves callbacks on a runtime with no worker.
    init(pluginID: String, image: String, settings: IsolationSettings, locator: ServiceLocator) {
        self.pluginID = pluginID
        self.image = image
        self.settings = settings
        self.locator = locator
        generation = Self.generations.withLock {
            Self.lastGeneration += 1
            return Self.lastGeneration
        }
        let size = settings.workers(for: pluginID.isEmpty ? nil : pluginID)
        places = (0..<size).map { WorkerPlace(index: $0) }
    }

    /// What a worker answered when it started.
    struct Started {
        var runtime: WorkerRuntime
        var manifest: PluginManifest
        var services: [String]
        /// Set when the kernel could not deny the data folder to the worker.
        var confinementWarning: String?
    }

    /// Starts the first worker on `image` (the host's unique copy of the plugin) and reads its manifest.
    /// - Parameter pluginID: the id the registry knows the plugin by, if it does: its limits in `isolation.conf`
    ///   apply from the first worker on.
    static func start(image: String, pluginID: String?, settings: IsolationSettings,
                      locator: ServiceLocator) -> Result<Started, PluginProblem> {
        let runtime = WorkerRuntime(pluginID: pluginID ?? "", image: image, settings: settings, locator: locator)
        switch runtime.spawn() {
        case .failure(let error): return .failure(.workerFailed(error.description))
        case .success(let (worker, manifest, services, warning)):
            let named = WorkerRuntime(pluginID: manifest.id, image: image, settings: settings, locator: locator)
            // The first worker fills the first place: a plugin with one run at a time never starts a second.
            named.places[0].worker = PooledWorker(worker)
            named.traces = [worker.trace]
            return .success(Started(runtime: named, manifest: manifest, services: services, confinementWarning: warning))
        }
    }

    /// Spawns a worker and reads its `ready` frame.
    private func spawn() -> Result<(WorkerProcess, PluginManifest, [String], String?), WireError> {
        let worker: WorkerProcess
        let limits = settings.limits(for: pluginID.isEmpty ? nil : pluginID)
        switch WorkerProcess.spawn(executable: settings.workerExecutable,
                                   arguments: IsolationSettings.workerArguments(image: image, limits: limits),
                                   limits: limits) {
        case .failure(let error): return .failure(error)
        case .success(let spawned): worker = spawned
        }
        lock.withLock {
            traces.append(worker.trace)
            if traces.count > Self.traceLimit { traces.removeFirst(traces.count - Self.traceLimit) }
        }
        let callbacks = CallbackState()
        // Lines init() logs before the worker says who the plugin is wait for its id (a first start knows none yet).
        var startLog: [LogLine] = []
        switch worker.first(deadline: settings.deadline, serve: { (frame: inout WireReader) throws(WireError) -> WireWriter? in
            guard frame.kind == .log, pluginID.isEmpty else { return try self.serve(&frame, with: callbacks) }
            startLog.append(try LogLine(&frame))
            return nil
        }) {
        case .failure(let error): return .failure(WireError(description: "\(error.description) while starting"))
        case .success(var frame):
            do {
                switch frame.kind {
                case .ready:
                    let ready = try Self.readReady(&frame)
                    for line in startLog { write(line, pluginID: ready.manifest.id) }
                    return .success((worker, ready.manifest, ready.services, ready.warning))
                case .startFailed:
                    let message = try frame.string()
                    worker.terminate()
                    return .failure(WireError(description: "refused to start: \(message)"))
                default:
                    throw WireError(description: "an unexpected \(frame.kind) message")
                }
            } catch {
                worker.terminate()
                return .failure(WireError(description: "broke the protocol while starting (\(error))"))
            }
        }
    }

    /// A line the plugin logged in its worker (a `log` frame).
    struct LogLine {
        var level: LogLevel
        /// The source the plugin named (rbs.log/1), or nil (the host table's `log`: tagged with the plugin's id).
        var source: String?
        var message: String

        init(_ frame: inout WireReader) throws(WireError) {
            level = LogLevel(rawValue: min(try frame.u32(), 3)) ?? .info
            source = try frame.optionalString()
            message = try frame.string()
        }
    }

    private func write(_ line: LogLine, pluginID: String) {
        locator.optional((any HostLog).self)?.write(level: line.level, source: line.source ?? pluginID, message: line.message)
    }

    /// What a worker's first frame (`ready`) says: the plugin's manifest (JSON), the services it registered and the
    /// confinement warning, if any. The worker runs the plugin, so all of it is untrusted input: read with bounds.
    static func readReady(_ frame: inout WireReader) throws(WireError) -> (manifest: PluginManifest, services: [String], warning: String?) {
        let json = try frame.data()
        let manifest: PluginManifest
        do { manifest = try JSONDecoder().decode(PluginManifest.self, from: Data(json)) } catch {
            throw WireError(description: "sent a manifest that does not decode")
        }
        // The worker read the translations from the plugin's table and checked them; a worker runs the plugin, so
        // what it sends is checked again before a person reads it.
        do { try TranslationRules.validate(manifest.operations) } catch {
            throw WireError(description: "sent a manifest with texts the host refuses: \(error)")
        }
        let count = try frame.u32()
        guard count <= 4096 else { throw WireError(description: "\(count) services") }
        var services: [String] = []
        for _ in 0..<count { services.append(try frame.string()) }
        let warning = try frame.optionalString()
        return (manifest, services, warning)
    }

    // MARK: - The pool

    /// The least busy place (under `lock`): one whose worker is not in a call (a worker held up by a slow call is
    /// passed over), then the fewest runs, then one whose worker runs already (no spawn), then the first.
    private func leastBusy() -> WorkerPlace {
        func load(_ place: WorkerPlace) -> (Int, Int, Int) {
            ((place.worker?.calls ?? 0) > 0 ? 1 : 0, (place.worker?.runs ?? 0) + place.reserved, place.worker == nil ? 1 : 0)
        }
        var best = places[0]
        for place in places.dropFirst() where load(place) < load(best) { best = place }
        return best
    }

    /// The worker serving `place`, started if the place is empty or its worker has ended. One spawn at a time per
    /// place (`place.spawning`); the pool's lock is not held while a worker starts.
    private func worker(at place: WorkerPlace) throws(WireError) -> PooledWorker {
        place.spawning.lock()
        defer { place.spawning.unlock() }
        if let pooled = lock.withLock({ place.worker }) {
            if pooled.process.isAlive { return pooled }
            lock.withLock { if place.worker === pooled { place.worker = nil } }
        }
        let started: WorkerProcess
        switch spawn() {
        case .failure(let error):
            lock.withLock { noteFault() }
            throw WireError(description: "a fresh worker " + error.description)
        case .success(let (process, _, _, _)): started = process
        }
        let pooled = PooledWorker(started)
        let state: Data? = lock.withLock {
            place.worker = pooled
            return handedOver
        }
        // A version that took over its predecessor's state gives it to every worker it starts.
        if let state { _ = load(state, into: pooled) }
        return pooled
    }

    /// Reserves the least busy place for a run of `operation` that is about to be opened (see `PluginPlacement`).
    func place(_ operation: RegisteredOperation) -> PluginPlacement {
        let place: WorkerPlace = lock.withLock {
            let place = leastBusy()
            place.reserved += 1
            live += 1
            return place
        }
        return PluginPlacement(lane: "\(pluginID) worker \(generation).\(place.index)", operation: operation,
                               reservation: PlacementReservation(runtime: self, place: place))
    }

    /// A placement that was never opened (or whose open failed) gives its place back; the last run of a retired
    /// version stops its workers.
    fileprivate func release(_ place: WorkerPlace) {
        settle {
            place.reserved -= 1
            live -= 1
        }
    }

    // MARK: - PluginRuntime

    func open(operation: String, control: any ModuleControl, placement: PluginPlacement?) throws(PluginFault) -> any PluginModule {
        func fault(_ cause: String) -> PluginFault {
            PluginFault(plugin: pluginID, operation: operation, call: "create()", cause: cause)
        }
        // The place reserved for this run (if it was placed on this version), else the least busy one now.
        let reserved = placement?.reservation.take(for: self)
        let (place, refusal): (WorkerPlace, String?) = lock.withLock {
            let place = reserved ?? leastBusy()
            if reserved == nil {
                place.reserved += 1
                live += 1
            }
            return (place, quarantineReason)
        }
        if let refusal {
            release(place)
            throw fault(refusal)
        }
        let pooled: PooledWorker
        do { pooled = try worker(at: place) } catch {
            release(place)
            throw fault(error.description)
        }
        let id: UInt32 = lock.withLock {
            let id = nextModule
            nextModule &+= 1
            if nextModule == 0 { nextModule = 1 }
            controls[id] = WeakControl(control: control)
            return id
        }
        // From here on the run is the worker's (its count goes with the worker, not the place: a worker that ends
        // takes its runs' weight with it).
        lock.withLock {
            place.reserved -= 1
            pooled.runs += 1
        }
        func giveBack() {
            settle {
                controls[id] = nil
                pooled.runs -= 1
                live -= 1
            }
        }
        var request = WireWriter(.create)
        request.u32(id)
        request.string(operation)
        var reply: WireReader
        do throws(PluginFault) {
            reply = try self.request(request, on: pooled, at: place, operation: operation, call: "create()")
        } catch {
            giveBack()
            throw error
        }
        guard (try? reply.i32()) == 0 else {
            giveBack()
            throw PluginFault(plugin: pluginID, operation: operation, call: "create()", cause: "returned NULL",
                              endsModule: false)
        }
        return WorkerModule(runtime: self, worker: pooled, place: place, id: id, operation: operation)
    }

    /// Sends one request on `worker` (the one at `place`) and waits for its reply, serving the worker's callbacks
    /// meanwhile; a worker fault becomes a `PluginFault`, and the dead worker leaves its place (counted once).
    func request(_ writer: WireWriter, on worker: PooledWorker, at place: WorkerPlace, operation: String,
                 call: String) throws(PluginFault) -> WireReader {
        lock.withLock { worker.calls += 1 }
        defer { lock.withLock { worker.calls -= 1 } }
        do {
            return try worker.process.request(writer, deadline: settings.deadline) { (frame: inout WireReader) throws(WireError) -> WireWriter? in
                try self.serve(&frame, with: worker.callbacks)
            }
        } catch {
            lock.withLock {
                if place.worker === worker { place.worker = nil }
                if !worker.faultCounted {
                    worker.faultCounted = true
                    noteFault()
                }
            }
            throw PluginFault(plugin: pluginID, operation: operation, call: call, cause: error.description)
        }
    }

    /// Counts a fault (under `lock`); enough of them within the window quarantine the plugin.
    private func noteFault() {
        let now = ContinuousClock.now
        faults = faults.filter { now - $0 < settings.quarantineWindow } + [now]
        if quarantineReason == nil, faults.count >= settings.quarantineAfter {
            let reason = "quarantined: its worker failed \(faults.count) times within \(WorkerProcess.seconds(settings.quarantineWindow)) — fix the plugin; it is tried again when its file changes"
            quarantineReason = reason
            locator.optional((any HostLog).self)?.write(level: .error, source: "rbs-host", message: "plugin \(pluginID): \(reason)")
        }
    }

    /// A module closed.
    func closed(_ id: UInt32, on worker: PooledWorker) {
        settle {
            controls[id] = nil
            worker.runs -= 1
            live -= 1
        }
    }

    /// This version is out of service: its workers exit once its last module has closed.
    func retire() { settle { retired = true } }

    /// Makes `change` to the bookkeeping under the lock; when it leaves a retired version without runs, stops that
    /// version's workers (outside the lock: a worker may take a moment to exit).
    private func settle(_ change: () -> Void) {
        let stopping: [PooledWorker] = lock.withLock {
            change()
            return retired && live == 0 ? emptyPlaces() : []
        }
        for worker in stopping { worker.process.quit() }
    }

    /// Takes every worker out of its place (under `lock`), for the caller to stop outside it.
    private func emptyPlaces() -> [PooledWorker] {
        places.compactMap { place in
            defer { place.worker = nil }
            return place.worker
        }
    }

    /// The first worker's pid, for tests and benchmarks.
    var workerPID: pid_t? { workerPIDs.first }

    /// The workers this runtime started, for tests (see `WorkerTrace`).
    var startedWorkers: [WorkerTrace] { lock.withLock { traces } }

    /// The pids of the workers in the pool now, in the order of their places.
    var workerPIDs: [pid_t] { lock.withLock { places.compactMap { $0.worker?.process.pid } } }

    // MARK: - Functions and state

    /// Calls plugin function `name` of `operation` in the worker of `module` (or, for a call without a module, like
    /// an account filter, on the least busy worker). A fault yields null; the module finds its worker dead at its
    /// next call and ends with the fault.
    func callFunction(operation: String, name: String, module: WorkerModule?, arguments: [ExprValue]) -> ExprValue {
        let target: (PooledWorker, WorkerPlace)
        if let module {
            target = (module.worker, module.place)
        } else {
            let place = lock.withLock { leastBusy() }
            guard let pooled = try? worker(at: place) else { return .null }
            target = (pooled, place)
        }
        var writer = WireWriter(.call)
        writer.u32(module?.id ?? 0)
        writer.string(operation)
        writer.string(name)
        writer.u32(UInt32(arguments.count))
        for argument in arguments { writer.expression(argument) }
        do {
            var reply = try request(writer, on: target.0, at: target.1, operation: operation, call: "\(name)()")
            return (try? reply.expression()) ?? .null
        } catch {
            // The module learns of it at its next call, with the function named.
            module?.pendingFault = error
            return .null
        }
    }

    /// The plugin's state (rbs.state/1) from one of its workers: the busiest, whose state has seen the most runs.
    func saveState() -> Data? {
        let target: (PooledWorker, WorkerPlace)? = lock.withLock {
            places.filter { $0.worker != nil }.max { ($0.worker?.runs ?? 0) < ($1.worker?.runs ?? 0) }.flatMap { place in place.worker.map { ($0, place) } }
        }
        guard let (worker, place) = target,
              var reply = try? request(WireWriter(.stateSave), on: worker, at: place, operation: "-", call: "rbs.state/1 save()"),
              (try? reply.bool()) == true, let bytes = try? reply.data() else { return nil }
        return Data(bytes)
    }

    /// Gives the previous version's state to every worker running now and to every one started later; false when a
    /// worker refused it.
    func loadState(_ data: Data) -> Bool {
        let running: [PooledWorker] = lock.withLock {
            handedOver = data
            return places.compactMap(\.worker)
        }
        return running.map { load(data, into: $0) }.allSatisfy { $0 }
    }

    private func load(_ data: Data, into worker: PooledWorker) -> Bool {
        var writer = WireWriter(.stateLoad)
        writer.data(data)
        guard let place = lock.withLock({ places.first { $0.worker === worker } }),
              var reply = try? request(writer, on: worker, at: place, operation: "-", call: "rbs.state/1 load()") else { return false }
        return (try? reply.bool()) ?? false
    }

    // MARK: - Serving the plugin's calls back into the host

    /// Answers one callback frame as if from a worker of its own (the worker-wire fuzz target's entry).
    func serve(_ frame: inout WireReader) throws(WireError) -> WireWriter? { try serve(&frame, with: scratch) }

    /// What the fuzz target's callbacks keep between calls.
    private let scratch = CallbackState()

    /// The module `id`'s control, if it is still open.
    private func control(_ id: UInt32) -> (any ModuleControl)? { lock.withLock { controls[id]?.control } }

    /// Answers one callback frame from a worker; `state` is that worker's own (its strings and lists), touched only
    /// by the thread its request is made on.
    private func serve(_ frame: inout WireReader, with state: CallbackState) throws(WireError) -> WireWriter? {
        var reply = WireWriter(.reply)
        switch frame.kind {
        case .getValue:
            let control = control(try frame.u32())
            let atom = try frame.string()
            if let value = control?.pluginGetValue(atom: atom, arena: state.arena) {
                reply.bool(true)
                reply.value(value)
            } else {
                reply.bool(false)
            }
        case .setValue:
            let control = control(try frame.u32())
            let atom = try frame.string()
            let value = try frame.value()
            reply.bool(value.withC { control?.pluginSetValue(atom: atom, value: $0.pointee) } ?? false)
        case .setCaption:
            let control = control(try frame.u32())
            let atom = try frame.string()
            let caption = try frame.string()
            reply.bool(control?.pluginSetCaption(atom: atom, caption: caption) ?? false)
        case .setCaptionTexts, .setErrorTexts:
            let control = control(try frame.u32())
            let caption = frame.kind == .setCaptionTexts
            let atom = caption ? try frame.string() : try frame.optionalString()
            let variants = try frame.variants()
            do throws(RunTextRefusal) {
                let texts = try RunText(checking: variants)
                let taken = caption ? atom.flatMap { control?.pluginSetCaption(atom: $0, texts: texts) }
                                    : control?.pluginSetError(atom: atom, texts: texts)
                reply.bool(taken ?? false)
            } catch {
                control?.pluginRefused(caption ? "set_caption" : "set_error", atom: atom, error)
                reply.bool(false)
            }
        case .setVisible:
            let control = control(try frame.u32())
            let atom = try frame.string()
            let visible = try frame.bool()
            reply.bool(control?.pluginSetVisible(atom: atom, visible: visible) ?? false)
        case .setError:
            let control = control(try frame.u32())
            let atom = try frame.bool() ? try frame.string() : nil
            let message = try frame.bool() ? try frame.string() : nil
            reply.bool(control?.pluginSetError(atom: atom, message: message) ?? false)
        case .log:
            write(try LogLine(&frame), pluginID: pluginID)
            return nil
        case .accountsCount:
            state.accounts = (try? locator.inject((any AccountsService).self).accounts()) ?? []
            reply.u32(UInt32(clamping: state.accounts.count))
        case .accountsAt:
            let index = Int(try frame.u32())
            if state.accounts.isEmpty {
                state.accounts = (try? locator.inject((any AccountsService).self).accounts()) ?? []
            }
            put(index < state.accounts.count ? state.accounts[index] : nil, into: &reply)
        case .accountsFind:
            let number = try frame.string()
            let accounts = (try? locator.inject((any AccountsService).self).accounts()) ?? []
            put(accounts.first { $0.number == number }, into: &reply)
        case .cardsCount:
            state.cards = (try? locator.inject((any CardsService).self).cards()) ?? []
            reply.u32(UInt32(clamping: state.cards.count))
        case .cardsAt:
            let index = Int(try frame.u32())
            if index < state.cards.count {
                let card = state.cards[index]
                reply.bool(true)
                for field in [String(card.id), card.masked, card.account] { reply.string(field) }
                reply.bool(card.blocked)
            } else {
                reply.bool(false)
            }
        case .directoryLookup:
            let bic = try frame.string()
            let directory = locator.optional(BankDirectory.self)
            if case .closed(_, let date)? = directory?.status(bic: bic) {
                locator.optional((any HostLog).self)?.write(
                    level: .warning, source: "rbs-host",
                    message: "BIC \(bic) was closed on \(date) (bank directory of \(directory?.date ?? "")); payments to it are refused")
            }
            if let bank = directory?.bank(bic: bic) {
                reply.bool(true)
                for field in [bank.bic, bank.name, bank.correspondentAccount, bank.city] { reply.string(field) }
            } else {
                reply.bool(false)
            }
        case .clockNow:
            let now = locator.optional((any Clock).self)?.now ?? Date()
            reply.i64(Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
        case .clockToday:
            reply.string(HostServiceTables.isoDate(locator.optional((any Clock).self)?.now ?? Date()))
        default:
            throw WireError(description: "an unexpected \(frame.kind) message")
        }
        return reply
    }

    private func put(_ account: Account?, into reply: inout WireWriter) {
        guard let account else { return reply.bool(false) }
        reply.bool(true)
        for field in [account.number, account.currency, account.balance.plain, account.owner, account.title] {
            reply.string(field)
        }
        reply.bool(account.blocked)
    }
}

/// One place in a plugin's pool of workers: the worker filling it (none until a run needs it, or after its worker
/// ended) and how many runs it serves.
final class WorkerPlace: @unchecked Sendable {
    let index: Int
    /// Under the runtime's lock.
    var worker: PooledWorker?
    /// Runs placed here and not yet opened (under the runtime's lock).
    var reserved = 0
    /// One start of a worker at a time for this place; held while it starts, never across a call into it.
    let spawning = NSRecursiveLock()

    init(index: Int) { self.index = index }
}

/// A worker process in a pool, with what serving its callbacks keeps.
final class PooledWorker: @unchecked Sendable {
    let process: WorkerProcess
    let callbacks = CallbackState()
    /// Whether its end was counted as a fault of the plugin (under the runtime's lock): once per worker.
    var faultCounted = false
    /// Modules open on it, and calls in flight (under the runtime's lock).
    var runs = 0
    var calls = 0

    init(_ process: WorkerProcess) { self.process = process }
}

/// What serving one worker's callbacks keeps between them: the strings handed out by get_value, and the accounts and
/// cards read for the count/at pairs. Touched only by the thread whose request the callbacks belong to (the worker's
/// request lock is held).
final class CallbackState: @unchecked Sendable {
    let arena = CStringArena()
    var accounts: [Account] = []
    var cards: [Card] = []
}

/// Where a run will be served, chosen before it is opened (`Runtime.place(_:)`): for a plugin in workers, the place
/// in its pool the run will start (and stay) on, reserved for it until it is opened (`Runtime.open(at:)`) or this
/// value goes away; for a plugin in the host's process, nothing but the plugin.
///
/// `lane` names the one thread at a time the run's calls are made from: the same name for every run on the same
/// worker (whose calls must not overlap), another for each worker, and the plugin's id for a plugin in the host's
/// process (the ABI calls a plugin from one thread at a time). A front end that serves many runs at once (`serve`)
/// queues each call on its lane, so a call waiting for a busy worker waits in that queue, not on a thread.
public final class PluginPlacement: @unchecked Sendable {
    public let lane: String
    let operation: RegisteredOperation
    let reservation: PlacementReservation

    init(lane: String, operation: RegisteredOperation, reservation: PlacementReservation = PlacementReservation()) {
        self.lane = lane
        self.operation = operation
        self.reservation = reservation
    }
}

/// A place held for a run that is not opened yet; given back if it never is.
final class PlacementReservation: @unchecked Sendable {
    private let lock = NSLock()
    private weak var runtime: WorkerRuntime?
    private var place: WorkerPlace?

    init(runtime: WorkerRuntime? = nil, place: WorkerPlace? = nil) {
        self.runtime = runtime
        self.place = place
    }

    /// The reserved place, once, if it is one of `runtime`'s.
    func take(for runtime: WorkerRuntime) -> WorkerPlace? {
        lock.withLock {
            guard self.runtime === runtime, let place else { return nil }
            self.place = nil
            return place
        }
    }

    deinit {
        if let place { runtime?.release(place) }
    }
}

/// One instance living in a worker.
final class WorkerModule: PluginModule {
    private let runtime: WorkerRuntime
    let worker: PooledWorker
    let place: WorkerPlace
    let id: UInt32
    private let operation: String
    private var destroyed = false

    init(runtime: WorkerRuntime, worker: PooledWorker, place: WorkerPlace, id: UInt32, operation: String) {
        self.runtime = runtime
        self.worker = worker
        self.place = place
        self.id = id
        self.operation = operation
    }

    /// A fault met while an expression called one of the plugin's functions for this module.
    var pendingFault: PluginFault?

    func call(function: String, arguments: [ExprValue]) -> ExprValue {
        guard !destroyed, pendingFault == nil else { return .null }
        return runtime.callFunction(operation: operation, name: function, module: self, arguments: arguments)
    }

    /// value_changed and the function calls a commit needs, in one request (`WireKind.commit`) and one reply.
    func commit(_ changes: [ValueChange], calls: [RunFunctions.Call]) throws(PluginFault) -> CommitReply {
        var writer = WireWriter(.commit)
        writer.u32(id)
        writer.string(operation)
        writer.u32(UInt32(changes.count))
        for change in changes {
            writer.string(change.atom.id)
            CValue.with(change.value, for: change.atom) { writer.value($0.pointee) }
        }
        writer.u32(UInt32(calls.count))
        for call in calls {
            writer.string(call.name)
            writer.u32(UInt32(call.arguments.count))
            for argument in call.arguments { writer.expression(argument) }
        }
        let name = "value_changed(\(changes.map(\.atom.id).joined(separator: ", ")))"
        var reply = try send(writer, call: name)
        do {
            return try Self.readCommitReply(&reply, changes: changes.count, calls: calls.count)
        } catch {
            worker.process.terminate()
            throw PluginFault(plugin: runtime.pluginID, operation: operation, call: name, cause: "broke the protocol (\(error))")
        }
    }

    private func send(_ writer: WireWriter, call: String) throws(PluginFault) -> WireReader {
        if let pendingFault { throw pendingFault }
        return try runtime.request(writer, on: worker, at: place, operation: operation, call: call)
    }

    private func status(_ reply: WireReader, call: String) throws(PluginFault) -> rbs_status_t? {
        var reply = reply
        guard let status = try? reply.i32() else {
            worker.process.terminate()
            throw PluginFault(plugin: runtime.pluginID, operation: operation, call: call, cause: "broke the protocol (a short reply)")
        }
        return status < 0 ? nil : status
    }

    func valueChanged(atom: AtomDescriptor, value: ExprValue) throws(PluginFault) -> rbs_status_t? {
        var writer = WireWriter(.valueChanged)
        writer.u32(id)
        writer.string(atom.id)
        CValue.with(value, for: atom) { writer.value($0.pointee) }
        let call = "value_changed(\(atom.id))"
        return try status(try send(writer, call: call), call: call)
    }

    func valueChangedRaw(atom: String, bytes: [UInt8]) throws(PluginFault) -> rbs_status_t? {
        var writer = WireWriter(.valueChanged)
        writer.u32(id)
        writer.string(atom)
        writer.value(WireValue(type: UInt32(RBS_VALUE_TEXT), text: bytes).withC { $0.pointee })
        let call = "value_changed(\(atom))"
        return try status(try send(writer, call: call), call: call)
    }

    func action(atom: String) throws(PluginFault) -> rbs_status_t? {
        var writer = WireWriter(.action)
        writer.u32(id)
        writer.string(atom)
        let call = "action(\(atom))"
        return try status(try send(writer, call: call), call: call)
    }

    func buildDocument() throws(PluginFault) -> BuiltDocument? {
        var writer = WireWriter(.build)
        writer.u32(id)
        var reply = try send(writer, call: "build_document()")
        do {
            return try Self.readBuiltDocument(&reply)
        } catch {
            worker.process.terminate()
            throw PluginFault(plugin: runtime.pluginID, operation: operation, call: "build_document()",
                              cause: "broke the protocol (\(error))")
        }
    }

    /// The reply to `commit`: value_changed's status for each of the `changes` values sent (negative: no callback)
    /// and exactly one answer for each of the `calls` function calls sent. The worker runs the plugin: a count that
    /// differs is a broken protocol.
    static func readCommitReply(_ reply: inout WireReader, changes: Int, calls: Int) throws(WireError) -> CommitReply {
        let told = Int(try reply.u32())
        guard told == changes else { throw WireError(description: "\(told) statuses to \(changes) values") }
        var statuses: [rbs_status_t?] = []
        for _ in 0..<told {
            let status = try reply.i32()
            statuses.append(status < 0 ? nil : status)
        }
        let count = Int(try reply.u32())
        guard count == calls else { throw WireError(description: "\(count) answers to \(calls) function calls") }
        var results: [ExprValue] = []
        for _ in 0..<count { results.append(try reply.expression()) }
        return CommitReply(statuses: statuses, results: results)
    }

    /// The reply to `build`: status (negative: no callback), the fields and the plugin's problem, if any.
    static func readBuiltDocument(_ reply: inout WireReader) throws(WireError) -> BuiltDocument? {
        let status = try reply.i32()
        if status < 0 { return nil }
        let count = try reply.u32()
        guard count <= 4096 else { throw WireError(description: "\(count) fields") }
        var fields: [(key: String, value: String)] = []
        for _ in 0..<count { fields.append((try reply.string(), try reply.string())) }
        return BuiltDocument(status: status, fields: fields, problem: try reply.optionalString())
    }

    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        if worker.process.isAlive {
            var writer = WireWriter(.destroy)
            writer.u32(id)
            _ = try? send(writer, call: "destroy()")
        }
        runtime.closed(id, on: worker)
    }
}
