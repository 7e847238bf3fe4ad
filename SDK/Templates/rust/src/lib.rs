//! example.my-plugin — a skeleton rbs-host plugin in Rust. Build: make. Check: rbs-host plugin check my-plugin.so
//!
//! Rules: no panics across the boundary (no unwrap, no indexing; `panic = "abort"` in release), every
//! incoming pointer checked for NULL, values the host passes are borrowed (copy what you keep).
use rbs_plugin_abi::*;
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::null;

/// One run of the operation.
struct State {
    note: CString,
}

const fn atom(id: &'static CStr, kind: u32, caption: &'static CStr) -> RbsAtomDescriptor {
    RbsAtomDescriptor {
        id: id.as_ptr(), kind, input_type: 0, flags: 0, min_length: 0, max_length: 0,
        caption: caption.as_ptr(), hint: null(), currency: null(), show_if: null(), valid_if: null(),
        error_text: null(), filter: null(), default_value: null(), option_count: 0, options: null(),
    }
}

static ATOMS: SyncPtr<[RbsAtomDescriptor; 2]> = SyncPtr([
    RbsAtomDescriptor { input_type: RBS_INPUT_TEXT, max_length: 140, ..atom(c"note", RBS_ATOM_INPUT, c"Note") },
    RbsAtomDescriptor { flags: RBS_ATOM_FLAG_SUBMIT, ..atom(c"send", RBS_ATOM_BUTTON, c"Send") },
]);

static OPERATIONS: SyncPtr<[RbsOperationDescriptor; 1]> = SyncPtr([RbsOperationDescriptor {
    id: c"example.my-plugin".as_ptr(),
    title: c"My plugin".as_ptr(),
    category: c"Examples".as_ptr(),
    atom_count: 2,
    atoms: &ATOMS.0 as *const [RbsAtomDescriptor; 2] as *const RbsAtomDescriptor,
    function_count: 0,
    functions: null(),
    create: Some(my_plugin_create),
    destroy: Some(my_plugin_destroy),
    value_changed: Some(my_plugin_value_changed),
    action: None,
    build_document: Some(my_plugin_build_document),
}]);

static DESCRIPTOR: SyncPtr<RbsPluginDescriptor> = SyncPtr(RbsPluginDescriptor {
    id: c"com.example.my-plugin".as_ptr(),
    name: c"My plugin".as_ptr(),
    version: c"0.1.0".as_ptr(),
    vendor: c"Example".as_ptr(),
    description: null(),
    operation_count: 1,
    operations: &OPERATIONS.0 as *const [RbsOperationDescriptor; 1] as *const RbsOperationDescriptor,
});

static ENTRY: SyncPtr<RbsPluginEntry> = SyncPtr(RbsPluginEntry {
    abi_version: RbsVersion { major: RBS_ABI_MAJOR, minor: RBS_ABI_MINOR, patch: RBS_ABI_PATCH },
    descriptor: &DESCRIPTOR.0,
    init: None,
    deinit: None,
    get_extension: None,
});

#[no_mangle]
pub extern "C" fn rbs_plugin_entry() -> *const RbsPluginEntry {
    &ENTRY.0
}

unsafe extern "C" fn my_plugin_create(
    _operation: *const RbsOperationDescriptor,
    _host: *const RbsHost,
    _module: *mut RbsModule,
) -> *mut c_void {
    Box::into_raw(Box::new(State { note: CString::default() })).cast()
}

unsafe extern "C" fn my_plugin_destroy(instance: *mut c_void) {
    if !instance.is_null() {
        drop(Box::from_raw(instance.cast::<State>()));
    }
}

unsafe extern "C" fn my_plugin_value_changed(
    instance: *mut c_void,
    atom_id: *const c_char,
    value: *const RbsValue,
    commit: bool,
) -> RbsStatus {
    if instance.is_null() || atom_id.is_null() || value.is_null() || !commit {
        return RBS_OK;
    }
    let state = &mut *instance.cast::<State>();
    if CStr::from_ptr(atom_id) != c"note" {
        return RBS_OK;
    }
    let value = &*value;
    state.note = CString::default();
    if value.type_ == RBS_VALUE_TEXT && !value.as_.text.data.is_null() {
        let Ok(length) = usize::try_from(value.as_.text.length) else { return RBS_OK };
        let bytes = std::slice::from_raw_parts(value.as_.text.data.cast::<u8>(), length);
        // Invalid UTF-8 or an inner NUL: keep nothing rather than fail.
        if let (Ok(text), Ok(note)) = (std::str::from_utf8(bytes), CString::new(bytes.to_vec())) {
            let _ = text;
            state.note = note;
        }
    }
    RBS_OK
}

unsafe extern "C" fn my_plugin_build_document(instance: *mut c_void, builder: *const RbsDocumentBuilder) -> RbsStatus {
    if instance.is_null() || builder.is_null() {
        return RBS_FAILED;
    }
    let state = &*instance.cast::<State>();
    let builder_ref = &*builder;
    let Some(put) = builder_ref.put else { return RBS_FAILED };
    if put(builder, c"purpose".as_ptr(), state.note.as_ptr()) { RBS_OK } else { RBS_FAILED }
}
