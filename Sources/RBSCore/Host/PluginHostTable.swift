import CRBSPlugin
import Foundation

/// The `rbs_host_t` one plugin receives: services, logging tagged with the plugin's id, and the per-instance
/// mutators. It lives as long as the plugin's image (never freed while a plugin may hold it).
final class PluginHostTable: @unchecked Sendable {
    let pluginID: String
    private let locator: ServiceLocator
    let pointer: UnsafeMutablePointer<rbs_host_t>
    /// The services this plugin version registered, to hand back if a replacement fails to start.
    var registered: [(id: String, table: UnsafeRawPointer)] = []
    private let name = strdup("rbs-host")
    private let version = strdup(RBSHost.version)

    init(pluginID: String, locator: ServiceLocator) {
        self.pluginID = pluginID
        self.locator = locator
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: rbs_host_t(
            abi_version: ABIVersion.host.raw,
            name: name.map { UnsafePointer($0) },
            version: version.map { UnsafePointer($0) },
            host_data: nil,
            get_service: { host, id in
                HostCallbackTap.note("get_service(\(HostCallbackTap.quoted(id)))")
                guard let table = PluginHostTable.from(host), let id else { return nil }
                return table.locator.table(id: String(cString: id))
            },
            register_service: { host, id, service in
                HostCallbackTap.note("register_service(\(HostCallbackTap.quoted(id)))")
                guard let table = PluginHostTable.from(host), let id, let service else { return false }
                do {
                    let serviceID = String(cString: id)
                    try table.locator.registerTable(service, id: serviceID, owner: table.pluginID,
                                                    token: ObjectIdentifier(table))
                    table.registered.append((serviceID, service))
                    return true
                } catch {
                    table.log(.warning, "register_service: \(error)")
                    return false
                }
            },
            log: { host, level, message in
                HostCallbackTap.note("log(\(level), \(HostCallbackTap.quoted(message)))")
                guard let table = PluginHostTable.from(host) else { return }
                table.log(LogLevel(rawValue: min(level, 3)) ?? .info, message.map { String(cString: $0) } ?? "")
            },
            get_value: { host, module, atom, out in
                HostCallbackTap.note("get_value(\(HostCallbackTap.atom(atom)))")
                guard let handle = ModuleHandle.from(module), let control = handle.control, let atom, let out
                else { return false }
                guard let value = control.pluginGetValue(atom: String(cString: atom), arena: handle.arena) else {
                    return false
                }
                out.pointee = value
                return true
            },
            set_value: { host, module, atom, value in
                HostCallbackTap.note("set_value(\(HostCallbackTap.atom(atom)))")
                guard let control = ModuleHandle.from(module)?.control, let atom, let value else { return false }
                return control.pluginSetValue(atom: String(cString: atom), value: value.pointee)
            },
            set_caption: { host, module, atom, caption in
                HostCallbackTap.note("set_caption(\(HostCallbackTap.atom(atom)), \(HostCallbackTap.quoted(caption)))")
                guard let control = ModuleHandle.from(module)?.control, let atom, let caption else { return false }
                return control.pluginSetCaption(atom: String(cString: atom), caption: caption)
            },
            set_visible: { host, module, atom, visible in
                HostCallbackTap.note("set_visible(\(HostCallbackTap.atom(atom)), \(visible))")
                guard let control = ModuleHandle.from(module)?.control, let atom else { return false }
                return control.pluginSetVisible(atom: String(cString: atom), visible: visible)
            },
            set_error: { host, module, atom, message in
                HostCallbackTap.note("set_error(\(HostCallbackTap.atom(atom)), \(HostCallbackTap.quoted(message)))")
                guard let control = ModuleHandle.from(module)?.control else { return false }
                return control.pluginSetError(atom: atom.map { String(cString: $0) },
                                              message: message.map { String(cString: $0) })
            }))
        pointer.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Withdraws the services this version registered.
    func withdrawServices() { locator.removeTables(token: ObjectIdentifier(self)) }

    /// Registers again the services this version had (its replacement failed to start).
    func restoreServices() {
        for (id, table) in registered {
            try? locator.registerTable(table, id: id, owner: pluginID, token: ObjectIdentifier(self))
        }
    }

    func log(_ level: LogLevel, _ message: String) {
        locator.optional((any HostLog).self)?.write(level: level, source: pluginID, message: message)
    }

    static func from(_ host: UnsafePointer<rbs_host_t>?) -> PluginHostTable? {
        guard let data = host?.pointee.host_data else { return nil }
        return Unmanaged<PluginHostTable>.fromOpaque(data).takeUnretainedValue()
    }
}

/// Facts about this host.
public enum RBSHost {
    public static let version = "0.1.0"
}
