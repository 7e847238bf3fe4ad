import CRBSPlugin
import Foundation

/// Hands a plugin's state from one version to the next across a reload (extension "rbs.state/1").
enum PluginState {
    /// The old version's saved state, or nil when it does not offer the extension or its save fails.
    static func save(from image: PluginImage) -> Data? {
        if let worker = image.runtime as? WorkerRuntime { return worker.saveState() }
        guard let table = image.extensionTable(RBS_EXT_STATE) else { return nil }
        guard let saved = save(extension: table) else {
            image.hostTable.log(.warning, "rbs.state/1 save() failed: the new version starts without the old state")
            return nil
        }
        return saved
    }

    /// Gives the saved state to the new version.
    static func load(_ data: Data, into image: PluginImage) {
        if let worker = image.runtime as? WorkerRuntime {
            if !worker.loadState(data) { image.hostTable.log(.warning, "rbs.state/1 load() refused the saved state") }
            return
        }
        if !load(data, extension: image.extensionTable(RBS_EXT_STATE)) {
            image.hostTable.log(.warning, "rbs.state/1 load() refused the saved state")
        }
    }

    /// Calls the extension's save(); nil when there is no extension or it fails (in-process and in a worker alike).
    static func save(extension table: UnsafeRawPointer?) -> Data? {
        guard let table = table?.assumingMemoryBound(to: rbs_state_extension_t.self),
              let save = table.pointee.save else { return nil }
        let buffer = StateBuffer()
        let ok = save(Unmanaged.passUnretained(buffer).toOpaque()) { writer, bytes, size in
            guard let writer, let bytes else { return false }
            let buffer = Unmanaged<StateBuffer>.fromOpaque(writer).takeUnretainedValue()
            guard buffer.data.count + size <= StateBuffer.limit else { return false }
            buffer.data.append(bytes, count: size)
            return true
        }
        return ok ? buffer.data : nil
    }

    /// Calls the extension's load(); true when there is none to call or it accepted the state.
    static func load(_ data: some Collection<UInt8>, extension table: UnsafeRawPointer?) -> Bool {
        guard let table = table?.assumingMemoryBound(to: rbs_state_extension_t.self),
              let load = table.pointee.load else { return true }
        let bytes = Array(data)
        return bytes.withUnsafeBufferPointer { load($0.baseAddress, $0.count) }
    }
}

private final class StateBuffer {
    static let limit = 16 * 1024 * 1024
    var data = Data()
}
