import CRBSPlugin
import Foundation
import RBSExpressions
import RBSLedger

/// Serves one plugin version's modules in worker processes (`rbs-host worker`): every callback crosses the socket,
/// every call the plugin makes back into its host table comes back the same way and reaches its module through
/// `ModuleControl`, like in-process.
///
/// A worker serves the plugin's modules until it faults; a fault ends only the modules that worker served, and the
/// next run starts a fresh worker. A plugin whose workers fault `quarantineAfter` times within the window is
/// quarantined: its runs are refused with the reason until its file changes (a new file is a new runtime).
final class WorkerRuntime: PluginRuntime, @unchecked Sendable {
    let pluginID: String
    private let image: String
    private let settings: IsolationSettings
    private let locator: ServiceLocator
    private let lock = NSRecursiveLock()
    private var current: WorkerProcess?
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
    /// Modules open now, so the last one to close on a retired version can stop its worker.
    private var live = 0
    private var retired = false
    private let arena = CStringArena()
    private var accountsSnapshot: [Account] = []
    private var cardsSnapshot: [Card] = []

    private struct WeakControl {
        weak var control: (any ModuleControl)?
    }

    /// Internal (not private) for the worker-wire fuzz target, which serves callbacks on a runtime with no worker.
    init(pluginID: String, image: String, settings: IsolationSettings, locator: ServiceLocator) {
        self.pluginID = pluginID
        self.image = image
        self.settings = settings
        self.locator = locator
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
            named.current = worker
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
        switch worker.first(deadline: settings.deadline) {
        case .failure(let error): return .failure(WireError(description: "\(error.description) while starting"))
        case .success(var frame):
            do {
                switch frame.kind {
                case .ready:
                    let ready = try Self.readReady(&frame)
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

    // MARK: - PluginRuntime

    func open(operation: String, control: any ModuleControl) throws(PluginFault) -> any PluginModule {
        lock.lock()
        defer { lock.unlock() }
        func fault(_ cause: String) -> PluginFault {
            PluginFault(plugin: pluginID, operation: operation, call: "create()", cause: cause)
        }
        if let quarantineReason { throw fault(quarantineReason) }
        if current?.isAlive != true {
            current = nil
            switch spawn() {
            case .failure(let error):
                noteFault()
                throw fault("a fresh worker " + error.description)
            case .success(let (worker, _, _, _)): current = worker
            }
        }
        guard let worker = current else { throw fault("no worker") }
        let id = nextModule
        nextModule &+= 1
        if nextModule == 0 { nextModule = 1 }
        controls[id] = WeakControl(control: control)
        var request = WireWriter(.create)
        request.u32(id)
        request.string(operation)
        do {
            var reply = try worker.request(request, deadline: settings.deadline, serve: serve)
            guard try reply.i32() == 0 else {
                controls[id] = nil
                throw PluginFault(plugin: pluginID, operation: operation, call: "create()", cause: "returned NULL",
                                  endsModule: false)
            }
        } catch let error as PluginFault {
            throw error
        } catch {
            controls[id] = nil
            noteFault()
            throw fault((error as? WireError)?.description ?? "\(error)")
        }
        live += 1
        return WorkerModule(runtime: self, worker: worker, id: id, operation: operation)
    }

    /// Sends one request for a module and waits for its reply; a worker fault becomes a `PluginFault`.
    func request(_ writer: WireWriter, on worker: WorkerProcess, operation: String,
                 call: String) throws(PluginFault) -> WireReader {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try worker.request(writer, deadline: settings.deadline, serve: serve)
        } catch {
            if worker === current { current = nil }
            noteFault()
            throw PluginFault(plugin: pluginID, operation: operation, call: call, cause: error.description)
        }
    }

    /// Counts a fault; enough of them within the window quarantine the plugin.
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
    func closed(_ id: UInt32) {
        lock.lock()
        defer { lock.unlock() }
        controls[id] = nil
        live -= 1
        if retired, live == 0 { stopWorkers() }
    }

    /// This version is out of service: its worker exits once its last module has closed.
    func retire() {
        lock.lock()
        defer { lock.unlock() }
        retired = true
        if live == 0 { stopWorkers() }
    }

    private func stopWorkers() {
        current?.quit()
        current = nil
    }

    /// The worker's pid, for tests and benchmarks.
    var workerPID: pid_t? {
        lock.lock()
        defer { lock.unlock() }
        return current?.pid
    }

    // MARK: - Functions and state

    /// Calls plugin function `name` of `operation` in the worker. `token` is a module's instance token (or nil for
    /// a call without a module, like an account filter). A fault yields null; the module finds its worker dead at
    /// its next call and ends with the fault.
    func callFunction(operation: String, name: String, token: UnsafeMutableRawPointer?, arguments: [ExprValue]) -> ExprValue {
        lock.lock()
        defer { lock.unlock() }
        let module = token.map { Unmanaged<WorkerModule>.fromOpaque($0).takeUnretainedValue() }
        guard let worker = module?.worker ?? current else { return .null }
        var writer = WireWriter(.call)
        writer.u32(module?.id ?? 0)
        writer.string(operation)
        writer.string(name)
        writer.u32(UInt32(arguments.count))
        for argument in arguments { writer.expression(argument) }
        do {
            var reply = try request(writer, on: worker, operation: operation, call: "\(name)()")
            return (try? reply.expression()) ?? .null
        } catch {
            // The module learns of it at its next call, with the function named.
            module?.pendingFault = error
            return .null
        }
    }

    func saveState() -> Data? {
        lock.lock()
        defer { lock.unlock() }
        guard let worker = current, var reply = try? request(WireWriter(.stateSave), on: worker, operation: "-",
                                                              call: "rbs.state/1 save()"),
              (try? reply.bool()) == true, let bytes = try? reply.data() else { return nil }
        return Data(bytes)
    }

    func loadState(_ data: Data) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let worker = current else { return false }
        var writer = WireWriter(.stateLoad)
        writer.data(data)
        guard var reply = try? request(writer, on: worker, operation: "-", call: "rbs.state/1 load()") else { return false }
        return (try? reply.bool()) ?? false
    }

    // MARK: - Serving the plugin's calls back into the host

    /// Answers one callback frame from the worker (internal for the worker-wire fuzz target).
    func serve(_ frame: inout WireReader) throws(WireError) -> WireWriter? {
        var reply = WireWriter(.reply)
        switch frame.kind {
        case .getValue:
            let control = controls[try frame.u32()]?.control
            let atom = try frame.string()
            if let value = control?.pluginGetValue(atom: atom, arena: arena) {
                reply.bool(true)
                reply.value(value)
            } else {
                reply.bool(false)
            }
        case .setValue:
            let control = controls[try frame.u32()]?.control
            let atom = try frame.string()
            let value = try frame.value()
            reply.bool(value.withC { control?.pluginSetValue(atom: atom, value: $0.pointee) } ?? false)
        case .setCaption:
            let control = controls[try frame.u32()]?.control
            let atom = try frame.string()
            let caption = try frame.string()
            reply.bool(control?.pluginSetCaption(atom: atom, caption: caption) ?? false)
        case .setVisible:
            let control = controls[try frame.u32()]?.control
            let atom = try frame.string()
            let visible = try frame.bool()
            reply.bool(control?.pluginSetVisible(atom: atom, visible: visible) ?? false)
        case .setError:
            let control = controls[try frame.u32()]?.control
            let atom = try frame.bool() ? try frame.string() : nil
            let message = try frame.bool() ? try frame.string() : nil
            reply.bool(control?.pluginSetError(atom: atom, message: message) ?? false)
        case .log:
            let level = try frame.u32()
            let source = try frame.optionalString()
            let message = try frame.string()
            locator.optional((any HostLog).self)?.write(level: LogLevel(rawValue: min(level, 3)) ?? .info,
                                                          source: source ?? pluginID, message: message)
            return nil
        case .accountsCount:
            accountsSnapshot = (try? locator.inject((any AccountsService).self).accounts()) ?? []
            reply.u32(UInt32(clamping: accountsSnapshot.count))
        case .accountsAt:
            let index = Int(try frame.u32())
            if accountsSnapshot.isEmpty {
                accountsSnapshot = (try? locator.inject((any AccountsService).self).accounts()) ?? []
            }
            put(index < accountsSnapshot.count ? accountsSnapshot[index] : nil, into: &reply)
        case .accountsFind:
            let number = try frame.string()
            let accounts = (try? locator.inject((any AccountsService).self).accounts()) ?? []
            put(accounts.first { $0.number == number }, into: &reply)
        case .cardsCount:
            cardsSnapshot = (try? locator.inject((any CardsService).self).cards()) ?? []
            reply.u32(UInt32(clamping: cardsSnapshot.count))
        case .cardsAt:
            let index = Int(try frame.u32())
            if index < cardsSnapshot.count {
                let card = cardsSnapshot[index]
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

/// One instance living in a worker.
final class WorkerModule: PluginModule {
    private let runtime: WorkerRuntime
    let worker: WorkerProcess
    let id: UInt32
    private let operation: String
    private var destroyed = false

    init(runtime: WorkerRuntime, worker: WorkerProcess, id: UInt32, operation: String) {
        self.runtime = runtime
        self.worker = worker
        self.id = id
        self.operation = operation
    }

    /// The token expressions pass to plugin functions: this module (resolved by `WorkerRuntime.callFunction`).
    var instance: UnsafeMutableRawPointer? { destroyed ? nil : Unmanaged.passUnretained(self).toOpaque() }

    /// A fault met while an expression called one of the plugin's functions for this module.
    var pendingFault: PluginFault?

    private func send(_ writer: WireWriter, call: String) throws(PluginFault) -> WireReader {
        if let pendingFault { throw pendingFault }
        return try runtime.request(writer, on: worker, operation: operation, call: call)
    }

    private func status(_ reply: WireReader, call: String) throws(PluginFault) -> rbs_status_t? {
        var reply = reply
        guard let status = try? reply.i32() else {
            worker.terminate()
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
            worker.terminate()
            throw PluginFault(plugin: runtime.pluginID, operation: operation, call: "build_document()",
                              cause: "broke the protocol (\(error))")
        }
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
        if worker.isAlive {
            var writer = WireWriter(.destroy)
            writer.u32(id)
            _ = try? send(writer, call: "destroy()")
        }
        runtime.closed(id)
    }
}
