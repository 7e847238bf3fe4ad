import CIsolation
import CRBSPlugin
import Foundation
import RBSExpressions
import RBSLedger

/// The worker side of plugin isolation: `rbs-host worker IMAGE` `dlopen`s one plugin image and serves its
/// operations to the host over the socket on descriptor 3 (see `WireKind`). The plugin runs exactly as it would
/// in-process — the same `rbs_host_t`, whose functions here forward to the host — but in a sandbox set up before any
/// of its code runs (after Chromium's Linux sandbox and OpenSSH's privilege separation):
///
/// - no descriptor to the data folder, an empty working directory;
/// - limits on address space, CPU time, open files and (when it left root) threads (setrlimit);
/// - Landlock: files readable only in the system's program and library folders, the image, the libraries it links
///   from elsewhere (``LinkedLibraries``), `ld.so.cache`, the time zone; writable only `/dev/null` and its kin;
/// - started as root, it leaves root for good: a uid and gid of its own (``sandboxUser(pid:)``), no groups, no
///   capabilities, PR_SET_NO_NEW_PRIVS — the image is read into a sealed memory file first, since the host's copy
///   is the host's alone;
/// - it dies with the host (PR_SET_PDEATHSIG), in a session of its own;
/// - a seccomp-bpf filter (`rbs_seccomp_install`): no new process, no exec, no socket; a forbidden call is reported
///   on descriptor 4 and ends the worker with SIGSYS.
///
/// Every worker starts the same way whatever it is for (a run, a check, a benchmark), so a plugin cannot tell them
/// apart.
public enum PluginWorker {
    /// The descriptor the host hands the worker its end of the socket pair on.
    public static let channel: Int32 = 3
    /// The descriptor a forbidden system call's number is written to (the write end of a pipe the host reads).
    public static let report: Int32 = 4

    /// Limits a worker runs under; zero means none.
    public struct Limits: Sendable, Equatable {
        /// Address space, in MiB (RLIMIT_AS): an allocation past it fails.
        public var addressSpaceMiB: Int = 0
        /// CPU time over the worker's life, in seconds (RLIMIT_CPU): the kernel sends SIGXCPU when it is used up.
        public var cpuSeconds: Int = 0
        /// Open descriptors (RLIMIT_NOFILE).
        public var openFiles: Int = 0
        /// Processes and threads of the worker's own user (RLIMIT_NPROC); applied only when the worker leaves root
        /// for a user of its own — otherwise it would count every process of the host's user.
        public var processes: Int = 0

        public init(addressSpaceMiB: Int = 0, cpuSeconds: Int = 0, openFiles: Int = 0, processes: Int = 0) {
            self.addressSpaceMiB = addressSpaceMiB
            self.cpuSeconds = cpuSeconds
            self.openFiles = openFiles
            self.processes = processes
        }

        /// What a worker runs under unless `isolation.conf` or the environment says otherwise.
        public static let standard = Limits(addressSpaceMiB: 1024, cpuSeconds: 300, openFiles: 256, processes: 64)
    }

    /// The uid and gid a worker started as root takes: one of its own, as systemd's `DynamicUser=` gives a service,
    /// so no two workers (nor any account) share it — they cannot signal or trace each other, and RLIMIT_NPROC counts
    /// this worker alone. No account has it: there is nothing to log in to, and no file on the system belongs to it.
    public static func sandboxUser(pid: pid_t) -> UInt32 { 2_000_000_000 + UInt32(truncatingIfNeeded: pid) }

    /// Runs the worker until the host says quit or goes away; returns the exit status.
    public static func run(image: String, limits: Limits) -> Int32 {
        closeInheritedDescriptors()
        let server = Server(fd: channel)
        switch confine(image: image, limits: limits) {
        case .failure(let problem): return server.refuse("the sandbox could not be set up: \(problem.description)")
        case .success(let confined): return server.start(image: image, opening: confined.path, isSwift: confined.isSwift,
                                                         confinement: confined.warning)
        }
    }

    /// Closes every descriptor but 0, 1, 2, the channel and the report pipe: nothing the host had open (the journal,
    /// the database, a key file) reaches the plugin.
    private static func closeInheritedDescriptors() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for name in names {
            guard let fd = Int32(name), fd > report else { continue }
            close(fd)
        }
    }

    /// What ``confine(image:limits:)`` leaves the serving loop.
    struct Confined {
        /// What to `dlopen`: the image, or the sealed memory copy of it when the worker left root.
        var path: String
        var isSwift: Bool
        /// A warning for the host when the kernel could not deny the data folder.
        var warning: String?
    }

    struct SandboxProblem: Error, CustomStringConvertible {
        var description: String
    }

    /// The folders whose files a plugin may read and execute: programs, libraries, locale and time zone data.
    static let systemFolders = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin"]
    /// Single files (or folders) elsewhere a plugin may read: the dynamic linker's cache, the time zone, its own
    /// `/proc/self` (resolved to its pid: not the other processes'), the CPU list the C library counts CPUs from.
    static let systemFiles = ["/etc/ld.so.cache", "/etc/localtime", "/etc/timezone", "/proc/self", "/proc/cpuinfo",
                              "/proc/meminfo", "/sys/devices/system/cpu", "/dev/urandom", "/dev/random"]
    /// What a plugin may write: nothing that keeps anything.
    static let writableFiles = ["/dev/null", "/dev/zero", "/dev/full"]

    /// Empty working directory, rlimits, Landlock, leaving root, death with the host, the seccomp filter — in this
    /// order, so each step still has what it needs and the filter comes last, just before the plugin is opened.
    private static func confine(image: String, limits: Limits) -> Result<Confined, SandboxProblem> {
        var why = [CChar](repeating: 0, count: 256)
        func reason() -> String { cText(why) }
        var template = Array("/tmp/rbs-worker-XXXXXX".utf8CString)
        if let made = mkdtemp(&template) {
            let directory = String(cString: made)
            if chdir(directory) == 0 { rmdir(directory) }
        } else {
            _ = chdir("/")
        }
        let isSwift = (try? ELFImage(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: image)))))?.isSwift ?? true
        let leavesRoot = geteuid() == 0
        var path = image
        if leavesRoot {
            // The host's copy is readable by root alone; the worker keeps a sealed copy of the bytes it may open later.
            let fd = rbs_memfd_copy(image, &why, why.count)
            guard fd >= 0 else { return .failure(SandboxProblem(description: reason())) }
            path = "/proc/self/fd/\(fd)"
        }
        // The libraries the plugin links from elsewhere (a Swift plugin: the toolchain's Swift runtime), file by file.
        let readable = systemFolders + systemFiles + [image] + LinkedLibraries(of: image, systemFolders: systemFolders).files
        let warning: String?
        switch lockDown(readable: readable, ownFolders: [], limits: limits, report: report) {
        case .failure(let problem): return .failure(problem)
        case .success(let landlockWarning): warning = landlockWarning
        }
        return .success(Confined(path: path, isSwift: isSwift, warning: warning))
    }

    /// Rlimits, Landlock (files readable only under `readable`, written only the ``writableFiles`` and under
    /// `ownFolders`, where files may also be made and removed), leaving root for good (the own folders handed to
    /// the new user first), death with the parent, the seccomp filter — in this order, so each step still has what
    /// it needs. A plugin worker and `plugin check`'s child both end their set-up with it. Answers a warning when
    /// the kernel has no Landlock (the rest still holds).
    static func lockDown(readable: [String], ownFolders: [String], limits: Limits,
                         report: Int32) -> Result<String?, SandboxProblem> {
        var why = [CChar](repeating: 0, count: 256)
        func reason() -> String { cText(why) }
        let host = getppid()
        let leavesRoot = geteuid() == 0
        func limit(_ resource: Int32, _ soft: Int, hard: Int? = nil) {
            guard soft > 0 else { return }
            var value = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard ?? soft))
            setrlimit(__rlimit_resource_t(UInt32(resource)), &value)
        }
        limit(Int32(RLIMIT_AS.rawValue), limits.addressSpaceMiB << 20)
        // The soft limit sends SIGXCPU; a worker that ignores it meets the hard limit's SIGKILL a second later.
        limit(Int32(RLIMIT_CPU.rawValue), limits.cpuSeconds, hard: limits.cpuSeconds + 1)
        limit(Int32(RLIMIT_NOFILE.rawValue), limits.openFiles)
        if leavesRoot { limit(Int32(__RLIMIT_NPROC.rawValue), limits.processes) }
        let landlock = withCStrings(readable) { read in
            withCStrings(writableFiles) { write in
                withCStrings(ownFolders) { own in
                    rbs_landlock_restrict_folders(read, Int32(readable.count), write, Int32(writableFiles.count),
                                                  own, Int32(ownFolders.count), &why, why.count)
                }
            }
        }
        var warning: String?
        if landlock <= 0 {
            warning = "the kernel could not confine plugin workers (Landlock: \(reason())) — plugins in workers can still open the data folder by its path"
        }
        if leavesRoot {
            let user = sandboxUser(pid: getpid())
            for folder in ownFolders {
                guard handOver(folder, to: user) else {
                    return .failure(SandboxProblem(description: "\(folder) could not be handed to the sandbox's user \(user)"))
                }
            }
            guard rbs_drop_privileges(user, user, &why, why.count) == 0 else {
                return .failure(SandboxProblem(description: reason()))
            }
        }
        // After the change of user, which clears it. A host already gone (or a new parent) ends the process now.
        if rbs_die_with_parent(host) == -ESRCH { exit(0) }
        guard rbs_seccomp_install_managing_files(report, ownFolders.isEmpty ? 0 : 1, &why, why.count) == 0 else {
            return .failure(SandboxProblem(description: reason()))
        }
        return .success(warning)
    }

    /// `folder` and everything in it owned by `user` (its own group too), symbolic links themselves never followed.
    private static func handOver(_ folder: String, to user: UInt32) -> Bool {
        guard lchown(folder, user, user) == 0 else { return false }
        guard let names = FileManager.default.enumerator(atPath: folder) else { return true }
        for case let name as String in names where lchown(folder + "/" + name, user, user) != 0 {
            return false
        }
        return true
    }

    /// `plugin check`'s child, just before it opens the plugin under check in its own process: the worker's
    /// lockdown (``lockDown(readable:ownFolders:limits:report:)``) with the standard limits but CPU time (the check's
    /// own deadline ends a hang), the plugin file, its folder and the libraries it links readable, and the child's
    /// throw-away data folder its own. Answers why it failed, or nil (a missing Landlock is only warned about).
    public static func confineCheck(plugin: String, dataFolder: String, warn: (String) -> Void) -> String? {
        // Once a process: a second lockdown (another load, a reload) would itself be a forbidden call.
        checkLock.lock()
        defer { checkLock.unlock() }
        guard !checkConfined else { return nil }
        checkConfined = true
        let folder = (plugin as NSString).deletingLastPathComponent
        // The host's own resources too (the bundled bank directory, read when a plugin first asks for a BIC).
        let readable = systemFolders + systemFiles + [plugin, folder.isEmpty ? "." : folder, Bundle.module.bundlePath]
            + LinkedLibraries(of: plugin, systemFolders: systemFolders).files
        var limits = Limits.standard
        limits.cpuSeconds = 0
        switch lockDown(readable: readable, ownFolders: [dataFolder], limits: limits, report: -1) {
        case .failure(let problem): return problem.description
        case .success(let warning):
            if let warning { warn(warning) }
            return nil
        }
    }

    private static let checkLock = NSLock()
    nonisolated(unsafe) private static var checkConfined = false

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

extension PluginWorker {
    /// The serving loop and the plugin's host table inside the worker.
    final class Server {
        let fd: Int32
        /// The host's frames, one `recv` for each (or for several).
        private let receiver: WireReceiver
        private var handle: DLHandle?
        private var entry: UnsafePointer<rbs_plugin_entry_t>?
        private var operations: [String: UnsafePointer<rbs_operation_descriptor_t>] = [:]
        private var manifest: PluginManifest?
        /// Live instances by the host's module id.
        private var instances: [UInt32: (operation: UnsafePointer<rbs_operation_descriptor_t>, instance: UnsafeMutableRawPointer)] = [:]
        private var functions: [String: ForeignFunction] = [:]
        private var services: [String] = []
        private let host: UnsafeMutablePointer<rbs_host_t> = .allocate(capacity: 1)
        /// Strings handed to the plugin by get_value and the services: valid until the next such call.
        private let arena = CStringArena()
        private let accounts: UnsafeMutablePointer<rbs_accounts_service_t> = .allocate(capacity: 1)
        private let directory: UnsafeMutablePointer<rbs_directory_service_t> = .allocate(capacity: 1)
        private let cards: UnsafeMutablePointer<rbs_cards_service_t> = .allocate(capacity: 1)
        private let logService: UnsafeMutablePointer<rbs_log_service_t> = .allocate(capacity: 1)
        private let clock: UnsafeMutablePointer<rbs_clock_service_t> = .allocate(capacity: 1)
        private let runTexts: UnsafeMutablePointer<rbs_run_texts_service_t> = .allocate(capacity: 1)
        private let name = strdup("rbs-host")
        private let version = strdup(RBSHost.version)

        init(fd: Int32) {
            self.fd = fd
            receiver = WireReceiver(fd: fd)
            Server.current = self
            buildTables()
        }

        nonisolated(unsafe) static var current: Server?

        /// Tells the host this worker cannot serve, and why.
        func refuse(_ message: String) -> Int32 {
            var writer = WireWriter(.startFailed)
            writer.string(message)
            _ = WireIO.write(fd, writer.frame)
            return 1
        }

        /// Opens the plugin (`opening`: the image, or its sealed copy) and serves it.
        func start(image: String, opening: String, isSwift: Bool, confinement: String?) -> Int32 {
            var options: DLHandle.Options = [.now, .local]
            if isSwift { options.insert(.noDelete) }
            let handle: DLHandle
            do { handle = try DLHandle(path: opening, options: options) } catch {
                return refuse(error.description.replacingOccurrences(of: opening, with: image))
            }
            self.handle = handle
            guard let symbol = handle.symbol(RBS_ENTRY_SYMBOL) else { return refuse(PluginProblem.noEntry.description) }
            guard let entry = unsafeBitCast(symbol, to: rbs_plugin_entry_fn.self)() else {
                return refuse(PluginProblem.entryReturnedNull.description)
            }
            self.entry = entry
            let manifest: PluginManifest
            do { manifest = try DescriptorReader.read(entry) } catch { return refuse(error.description) }
            self.manifest = manifest
            if let descriptor = entry.pointee.descriptor, let list = descriptor.pointee.operations {
                for index in 0..<Int(descriptor.pointee.operation_count) {
                    if let id = list[index].id { operations[String(cString: id)] = list + index }
                }
            }
            if let initialize = entry.pointee.`init`, !initialize(UnsafePointer(host)) {
                return refuse(PluginProblem.initFailed.description)
            }
            var ready = WireWriter(.ready)
            ready.data((try? JSONEncoder().encode(manifest)).map { [UInt8]($0) } ?? [])
            ready.u32(UInt32(services.count))
            for service in services { ready.string(service) }
            ready.optionalString(confinement)
            guard WireIO.write(fd, ready.frame) else { return 0 }
            return serve()
        }

        private func serve() -> Int32 {
            while true {
                switch receiver.next() {
                case .end, .timedOut: return 0
                case .malformed: return 2
                case .frame(var request):
                    do {
                        guard let reply = try handle(&request) else { return quit() }
                        guard WireIO.write(fd, reply.frame) else { return 0 }
                    } catch {
                        return 2
                    }
                }
            }
        }

        private func quit() -> Int32 {
            if let entry, let deinitialize = entry.pointee.deinit { deinitialize() }
            return 0
        }

        /// Serves one request; nil for quit.
        private func handle(_ request: inout WireReader) throws(WireError) -> WireWriter? {
            var reply = WireWriter(.reply)
            switch request.kind {
            case .create:
                let module = try request.u32()
                let id = try request.string()
                guard let pointer = operations[id], let create = pointer.pointee.create,
                      let created = create(pointer, UnsafePointer(host), OpaquePointer(bitPattern: UInt(module)))
                else {
                    reply.i32(1)
                    return reply
                }
                instances[module] = (pointer, created)
                reply.i32(0)
            case .destroy:
                let module = try request.u32()
                if let live = instances.removeValue(forKey: module), let destroy = live.operation.pointee.destroy {
                    destroy(live.instance)
                }
            case .valueChanged:
                let module = try request.u32()
                let atom = try request.string()
                let value = try request.value()
                guard let live = instances[module], let changed = live.operation.pointee.value_changed else {
                    reply.i32(-1)
                    return reply
                }
                reply.i32(atom.withCString { name in value.withC { changed(live.instance, name, $0, true) } })
            case .commit:
                let module = try request.u32()
                let operation = try request.string()
                let told = try request.u32()
                guard told <= 4096 else { throw WireError(description: "\(told) values") }
                var changes: [(atom: String, value: WireValue)] = []
                for _ in 0..<told { changes.append((try request.string(), try request.value())) }
                let count = try request.u32()
                guard count <= 4096 else { throw WireError(description: "\(count) function calls") }
                var calls: [(name: String, arguments: [ExprValue])] = []
                for _ in 0..<count {
                    let name = try request.string()
                    let arity = try request.u32()
                    guard arity <= 256 else { throw WireError(description: "\(arity) arguments") }
                    var arguments: [ExprValue] = []
                    for _ in 0..<arity { arguments.append(try request.expression()) }
                    calls.append((name, arguments))
                }
                let live = instances[module]
                reply.u32(UInt32(changes.count))
                for change in changes {
                    if let live, let changed = live.operation.pointee.value_changed {
                        reply.i32(change.atom.withCString { name in change.value.withC { changed(live.instance, name, $0, true) } })
                    } else {
                        reply.i32(-1)
                    }
                }
                // After value_changed, as the host would call them next: the answers reflect what it was told.
                reply.u32(UInt32(calls.count))
                for call in calls {
                    reply.expression(function(operation, call.name)?.call(instance: live?.instance, arguments: call.arguments) ?? .null)
                }
            case .action:
                let module = try request.u32()
                let atom = try request.string()
                guard let live = instances[module], let action = live.operation.pointee.action else {
                    reply.i32(-1)
                    return reply
                }
                reply.i32(atom.withCString { action(live.instance, $0) })
            case .build:
                let module = try request.u32()
                guard let live = instances[module], let build = live.operation.pointee.build_document else {
                    reply.i32(-1)
                    return reply
                }
                let collector = DocumentCollector()
                let status = collector.withBuilder { build(live.instance, $0) }
                reply.i32(status)
                reply.u32(UInt32(collector.fields.count))
                for field in collector.fields {
                    reply.string(field.key)
                    reply.string(field.value)
                }
                reply.optionalString(collector.problem)
            case .call:
                let module = try request.u32()
                let operation = try request.string()
                let name = try request.string()
                let count = try request.u32()
                guard count <= 256 else { throw WireError(description: "\(count) arguments") }
                var arguments: [ExprValue] = []
                for _ in 0..<count { arguments.append(try request.expression()) }
                let instance = module == 0 ? nil : instances[module]?.instance
                reply.expression(function(operation, name)?.call(instance: instance, arguments: arguments) ?? .null)
            case .stateSave:
                let saved = PluginState.save(extension: extensionTable(RBS_EXT_STATE))
                reply.bool(saved != nil)
                if let saved { reply.data(saved) }
            case .stateLoad:
                let bytes = try request.data()
                reply.bool(PluginState.load(bytes, extension: extensionTable(RBS_EXT_STATE)))
            case .quit:
                return nil
            default:
                throw WireError(description: "unexpected \(request.kind)")
            }
            return reply
        }

        private func extensionTable(_ id: String) -> UnsafeRawPointer? {
            guard let lookup = entry?.pointee.get_extension else { return nil }
            return id.withCString { lookup($0) }
        }

        /// The function `name` of `operation`, bound through libffi on first use.
        private func function(_ operation: String, _ name: String) -> ForeignFunction? {
            let key = operation + "\u{0}" + name
            if let known = functions[key] { return known }
            guard let declared = manifest?.operations.first(where: { $0.id == operation })?.functions
                .first(where: { $0.name == name }),
                  let address = handle?.symbol(declared.symbol),
                  let bound = try? ForeignFunction(name: name, pointer: UnsafeRawPointer(address),
                                                   signature: declared.signature, isInstanceBound: declared.takesInstance)
            else { return nil }
            functions[key] = bound
            return bound
        }

        // MARK: - Calling the host back

        /// Sends a callback and waits for the host's reply. A host that is gone ends the worker.
        ///
        /// While the host serves the callback it may call one of the plugin's functions: a value the plugin set is
        /// checked at once by the form, and its valid-if may call one (`isBasisDate(docDate)`). The host's request
        /// waits on its recursive lock for that answer, so it is served here, and the wait for the reply goes on.
        func callback(_ writer: WireWriter) -> WireReader? {
            guard WireIO.write(fd, writer.frame) else { exit(0) }
            while true {
                switch receiver.next() {
                case .frame(let reply) where reply.kind == .reply: return reply
                case .frame(var nested) where nested.kind == .call:
                    guard let answer = try? handle(&nested), WireIO.write(fd, answer.frame) else { exit(0) }
                default: exit(0)
                }
            }
        }

        func boolCallback(_ writer: WireWriter) -> Bool {
            guard var reply = callback(writer) else { return false }
            return (try? reply.bool()) ?? false
        }

        func notify(_ writer: WireWriter) { _ = WireIO.write(fd, writer.frame) }

        private func buildTables() {
            host.initialize(to: rbs_host_t(
                abi_version: ABIVersion.host.raw,
                name: name.map { UnsafePointer($0) },
                version: version.map { UnsafePointer($0) },
                host_data: nil,
                get_service: { _, id in
                    guard let server = Server.current, let id else { return nil }
                    switch String(cString: id) {
                    case RBS_SERVICE_ACCOUNTS: return UnsafeRawPointer(server.accounts)
                    case RBS_SERVICE_DIRECTORY: return UnsafeRawPointer(server.directory)
                    case RBS_SERVICE_CARDS: return UnsafeRawPointer(server.cards)
                    case RBS_SERVICE_LOG: return UnsafeRawPointer(server.logService)
                    case RBS_SERVICE_CLOCK: return UnsafeRawPointer(server.clock)
                    case RBS_SERVICE_RUN_TEXTS: return UnsafeRawPointer(server.runTexts)
                    default: return nil
                    }
                },
                register_service: { _, id, service in
                    guard let server = Server.current, let id, service != nil else { return false }
                    server.services.append(String(cString: id))
                    return true
                },
                log: { _, level, message in
                    var writer = WireWriter(.log)
                    writer.u32(level)
                    writer.optionalString(nil)
                    writer.cString(message)
                    Server.current?.notify(writer)
                },
                get_value: { _, module, atom, out in
                    guard let server = Server.current, let atom, let out else { return false }
                    var writer = WireWriter(.getValue)
                    writer.u32(UInt32(truncatingIfNeeded: UInt(bitPattern: module)))
                    writer.cString(atom)
                    guard var reply = server.callback(writer), (try? reply.bool()) == true,
                          let value = try? reply.value() else { return false }
                    out.pointee = server.keep(value)
                    return true
                },
                set_value: { _, module, atom, value in
                    guard let server = Server.current, let atom, let value else { return false }
                    var writer = WireWriter(.setValue)
                    writer.u32(UInt32(truncatingIfNeeded: UInt(bitPattern: module)))
                    writer.cString(atom)
                    writer.value(value.pointee)
                    return server.boolCallback(writer)
                },
                set_caption: { _, module, atom, caption in
                    guard let server = Server.current, let atom, let caption else { return false }
                    var writer = WireWriter(.setCaption)
                    writer.u32(UInt32(truncatingIfNeeded: UInt(bitPattern: module)))
                    writer.cString(atom)
                    writer.cString(caption)
                    return server.boolCallback(writer)
                },
                set_visible: { _, module, atom, visible in
                    guard let server = Server.current, let atom else { return false }
                    var writer = WireWriter(.setVisible)
                    writer.u32(UInt32(truncatingIfNeeded: UInt(bitPattern: module)))
                    writer.cString(atom)
                    writer.bool(visible)
                    return server.boolCallback(writer)
                },
                set_error: { _, module, atom, message in
                    guard let server = Server.current else { return false }
                    var writer = WireWriter(.setError)
                    writer.u32(UInt32(truncatingIfNeeded: UInt(bitPattern: module)))
                    writer.bool(atom != nil)
                    if let atom { writer.cString(atom) }
                    writer.bool(message != nil)
                    if let message { writer.cString(message) }
                    return server.boolCallback(writer)
                }))
            accounts.initialize(to: rbs_accounts_service_t(
                context: nil,
                count: { _ in
                    guard var reply = Server.current?.callback(WireWriter(.accountsCount)) else { return 0 }
                    return (try? reply.u32()) ?? 0
                },
                at: { _, index, out in
                    var writer = WireWriter(.accountsAt)
                    writer.u32(index)
                    return Server.current?.account(writer, into: out) ?? false
                },
                find: { _, number, out in
                    guard let number else { return false }
                    var writer = WireWriter(.accountsFind)
                    writer.cString(number)
                    return Server.current?.account(writer, into: out) ?? false
                }))
            cards.initialize(to: rbs_cards_service_t(
                context: nil,
                count: { _ in
                    guard var reply = Server.current?.callback(WireWriter(.cardsCount)) else { return 0 }
                    return (try? reply.u32()) ?? 0
                },
                at: { _, index, out in
                    guard let server = Server.current, let out else { return false }
                    var writer = WireWriter(.cardsAt)
                    writer.u32(index)
                    guard var reply = server.callback(writer), (try? reply.bool()) == true,
                          let fields = try? (0..<3).map({ _ throws(WireError) in try reply.string() }),
                          let blocked = try? reply.bool() else { return false }
                    server.arena.reset()
                    out.pointee = rbs_card_t(id: server.arena.keep(fields[0]), masked: server.arena.keep(fields[1]),
                                             account: server.arena.keep(fields[2]), blocked: blocked)
                    return true
                }))
            directory.initialize(to: rbs_directory_service_t(
                context: nil,
                lookup: { _, bic, out in
                    guard let server = Server.current, let bic, let out else { return false }
                    var writer = WireWriter(.directoryLookup)
                    writer.cString(bic)
                    guard var reply = server.callback(writer), (try? reply.bool()) == true,
                          let fields = try? (0..<4).map({ _ throws(WireError) in try reply.string() }) else { return false }
                    server.arena.reset()
                    out.pointee = rbs_bank_t(bic: server.arena.keep(fields[0]), name: server.arena.keep(fields[1]),
                                             corr_account: server.arena.keep(fields[2]), city: server.arena.keep(fields[3]))
                    return true
                }))
            runTexts.initialize(to: rbs_run_texts_service_t(
                context: nil,
                set_caption: { _, module, atom, count, variants in
                    guard let server = Server.current, let atom else { return false }
                    return server.runText(.setCaptionTexts, module: module, atom: String(cString: atom), count: count, variants)
                },
                set_error: { _, module, atom, count, variants in
                    guard let server = Server.current else { return false }
                    return server.runText(.setErrorTexts, module: module, atom: atom.map { String(cString: $0) }, count: count, variants)
                }))
            logService.initialize(to: rbs_log_service_t(
                context: nil,
                write: { _, level, source, message in
                    var writer = WireWriter(.log)
                    writer.u32(level)
                    writer.optionalString(source.map { String(cString: $0) })
                    writer.cString(message)
                    Server.current?.notify(writer)
                }))
            clock.initialize(to: rbs_clock_service_t(
                context: nil,
                now_unix_ms: { _ in
                    guard var reply = Server.current?.callback(WireWriter(.clockNow)) else { return 0 }
                    return (try? reply.i64()) ?? 0
                },
                today: { _, out in
                    guard let out, var reply = Server.current?.callback(WireWriter(.clockToday)),
                          let text = try? reply.string() else { return }
                    let bytes = Array(text.utf8.prefix(10)) + [0]
                    for (index, byte) in bytes.enumerated() { out[index] = CChar(bitPattern: byte) }
                }))
        }

        /// A rbs.run-texts/1 call: read here (the plugin's pointers live in this process), checked again by the host.
        /// A refusal is logged for the plugin's author, as the host does for a plugin in its own process.
        fileprivate func runText(_ kind: WireKind, module: OpaquePointer?, atom: String?, count: UInt32,
                                 _ variants: UnsafePointer<rbs_text_variant_t>?) -> Bool {
            let texts: RunText
            do throws(RunTextRefusal) { texts = try RunText.read(count: count, variants) } catch {
                var log = WireWriter(.log)
                log.u32(UInt32(RBS_LOG_WARNING))
                log.optionalString(nil)
                log.string(error.logLine(kind == .setCaptionTexts ? "set_caption" : "set_error", atom: atom))
                notify(log)
                return false
            }
            var writer = WireWriter(kind)
            writer.u32(UInt32(truncatingIfNeeded: UInt(bitPattern: module)))
            if kind == .setCaptionTexts { writer.string(atom ?? "") } else { writer.optionalString(atom) }
            writer.variants(texts)
            return boolCallback(writer)
        }

        private func account(_ writer: WireWriter, into out: UnsafeMutablePointer<rbs_account_t>?) -> Bool {
            guard let out, var reply = callback(writer), (try? reply.bool()) == true,
                  let fields = try? (0..<5).map({ _ throws(WireError) in try reply.string() }),
                  let blocked = try? reply.bool() else { return false }
            arena.reset()
            out.pointee = rbs_account_t(number: arena.keep(fields[0]), currency: arena.keep(fields[1]),
                                        balance: arena.keep(fields[2]), owner: arena.keep(fields[3]),
                                        title: arena.keep(fields[4]), blocked: blocked)
            return true
        }

        /// A value from the host as an `rbs_value_t` whose strings live in the arena.
        private func keep(_ value: WireValue) -> rbs_value_t {
            arena.reset()
            return value.withC { raw in
                var copy = raw.pointee
                switch Int(copy.type) {
                case RBS_VALUE_TEXT, RBS_VALUE_DATE, RBS_VALUE_DECIMAL:
                    copy.as.text.data = arena.keep(String(decoding: value.text, as: UTF8.self))
                case RBS_VALUE_MONEY:
                    copy.as.money.amount = arena.keep(String(decoding: value.text, as: UTF8.self))
                    copy.as.money.currency = arena.keep(String(decoding: value.currency, as: UTF8.self))
                default: break
                }
                return copy
            }
        }
    }
}
