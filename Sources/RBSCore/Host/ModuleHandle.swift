import CRBSPlugin

/// What a running module lets its plugin do through the host table's per-instance mutators. The form session
/// implements it; every call comes from inside a callback the host made, on the host's thread.
protocol ModuleControl: AnyObject {
    /// The atom's current value, or nil for an unknown atom. Strings go into `arena` (valid until it is reset).
    func pluginGetValue(atom: String, arena: CStringArena) -> rbs_value_t?
    func pluginSetValue(atom: String, value: rbs_value_t) -> Bool
    /// `caption` is checked here: at most the load-time limit of bytes, valid UTF-8.
    func pluginSetCaption(atom: String, caption: UnsafePointer<CChar>) -> Bool
    func pluginSetVisible(atom: String, visible: Bool) -> Bool
    /// `atom` nil marks the whole form; `message` nil clears the mark.
    func pluginSetError(atom: String?, message: String?) -> Bool
    /// rbs.run-texts/1: a caption or mark in each language the plugin writes (checked already).
    func pluginSetCaption(atom: String, texts: RunText) -> Bool
    func pluginSetError(atom: String?, texts: RunText) -> Bool
    /// A rbs.run-texts/1 call (`set_caption`, `set_error`) that was refused: logged for the plugin's author.
    func pluginRefused(_ call: String, atom: String?, _ why: RunTextRefusal)
}

/// The object behind an `rbs_module_t *`: lives exactly as long as the module, so a plugin calling with a module
/// that has ended reaches a handle whose control is gone and gets `false`, never freed memory.
final class ModuleHandle {
    weak var control: (any ModuleControl)?
    /// Strings handed out by get_value: valid until the next call that changes this module.
    let arena = CStringArena()

    init(control: any ModuleControl) { self.control = control }

    /// The opaque pointer plugins hold. Valid while this handle is alive.
    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ pointer: OpaquePointer?) -> ModuleHandle? {
        guard let pointer else { return nil }
        return Unmanaged<ModuleHandle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }
}
