/// The Rust plugin skeleton: a cargo package with no crates (`cargo build --offline --release`), the part of the ABI
/// it uses mirrored with `#[repr(C)]` (checked against the header's sizes at compile time), one operation, and a
/// Makefile that copies the built library to NAME.so.
enum RustTemplate {
    static func files(_ skeleton: PluginSkeleton) -> [(path: String, contents: String)] {
        let id = skeleton.identifier
        return [
            ("Cargo.toml", """
                [package]
                name = "\(skeleton.name)"
                version = "0.1.0"
                edition = "2021"
                publish = false

                [lib]
                crate-type = ["cdylib"]
                path = "src/lib.rs"

                # No dependencies: the ABI is mirrored by hand in src/abi.rs (headers for reference in include/).
                [dependencies]

                # A panic never unwinds into the host.
                [profile.release]
                panic = "abort"

                """),
            ("Makefile", """
                # Builds \(skeleton.name).so with cargo (no crates, offline). `make` then `rbs-host plugin check \(skeleton.name).so`.
                CARGO ?= cargo

                \(skeleton.name).so: Cargo.toml $(wildcard src/*.rs)
                \t$(CARGO) build --offline --release
                \tcp target/release/lib\(id).so $@

                clean:
                \trm -rf target \(skeleton.name).so

                .PHONY: clean

                """),
            ("src/abi.rs", abi),
            ("src/lib.rs", """
                //! \(skeleton.operationID) — a skeleton rbs-host plugin in Rust. Build: make. Check: rbs-host plugin check \(skeleton.name).so
                //!
                //! Rules: no panics across the boundary (no unwrap, no indexing; `panic = "abort"` in release), every
                //! incoming pointer checked for NULL, values the host passes are borrowed (copy what you keep).
                mod abi;

                use abi::*;
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
                    id: c"\(skeleton.operationID)".as_ptr(),
                    title: c"\(skeleton.title)".as_ptr(),
                    category: c"Examples".as_ptr(),
                    atom_count: 2,
                    atoms: &ATOMS.0 as *const [RbsAtomDescriptor; 2] as *const RbsAtomDescriptor,
                    function_count: 0,
                    functions: null(),
                    create: Some(\(id)_create),
                    destroy: Some(\(id)_destroy),
                    value_changed: Some(\(id)_value_changed),
                    action: None,
                    build_document: Some(\(id)_build_document),
                }]);

                static DESCRIPTOR: SyncPtr<RbsPluginDescriptor> = SyncPtr(RbsPluginDescriptor {
                    id: c"\(skeleton.pluginID)".as_ptr(),
                    name: c"\(skeleton.title)".as_ptr(),
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

                unsafe extern "C" fn \(id)_create(
                    _operation: *const RbsOperationDescriptor,
                    _host: *const RbsHost,
                    _module: *mut RbsModule,
                ) -> *mut c_void {
                    Box::into_raw(Box::new(State { note: CString::default() })).cast()
                }

                unsafe extern "C" fn \(id)_destroy(instance: *mut c_void) {
                    if !instance.is_null() {
                        drop(Box::from_raw(instance.cast::<State>()));
                    }
                }

                unsafe extern "C" fn \(id)_value_changed(
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

                unsafe extern "C" fn \(id)_build_document(instance: *mut c_void, builder: *const RbsDocumentBuilder) -> RbsStatus {
                    if instance.is_null() || builder.is_null() {
                        return RBS_FAILED;
                    }
                    let state = &*instance.cast::<State>();
                    let builder_ref = &*builder;
                    let Some(put) = builder_ref.put else { return RBS_FAILED };
                    if put(builder, c"purpose".as_ptr(), state.note.as_ptr()) { RBS_OK } else { RBS_FAILED }
                }

                """),
            (".gitignore", "target/\n*.so\n"),
        ]
    }

    /// The `#[repr(C)]` mirror of the parts of rbs_plugin.h the skeleton uses.
    static let abi = """
        //! `#[repr(C)]` mirrors of the parts of rbs_plugin.h (ABI 1.0, copied to include/) this plugin uses: fields in
        //! the header's order and types; C enums are `u32`; a function pointer that may be NULL is an `Option`.
        #![allow(dead_code)]

        use std::ffi::{c_char, c_void};

        pub const RBS_ABI_MAJOR: u32 = 1;
        pub const RBS_ABI_MINOR: u32 = 0;
        pub const RBS_ABI_PATCH: u32 = 0;

        #[repr(C)]
        #[derive(Clone, Copy)]
        pub struct RbsVersion {
            pub major: u32,
            pub minor: u32,
            pub patch: u32,
        }

        pub const RBS_VALUE_NONE: u32 = 0;
        pub const RBS_VALUE_TEXT: u32 = 1;

        #[repr(C)]
        #[derive(Clone, Copy)]
        pub struct RbsText {
            pub data: *const c_char,
            pub length: u64,
        }

        #[repr(C)]
        #[derive(Clone, Copy)]
        pub struct RbsMoney {
            pub amount: *const c_char,
            pub currency: *const c_char,
        }

        #[repr(C)]
        #[derive(Clone, Copy)]
        pub union RbsValueAs {
            pub text: RbsText,
            pub integer: i64,
            pub boolean: bool,
            pub money: RbsMoney,
        }

        #[repr(C)]
        #[derive(Clone, Copy)]
        pub struct RbsValue {
            pub type_: u32,
            pub as_: RbsValueAs,
        }

        pub const RBS_ATOM_INPUT: u32 = 2;
        pub const RBS_ATOM_BUTTON: u32 = 6;
        pub const RBS_INPUT_TEXT: u32 = 0;
        pub const RBS_ATOM_FLAG_SUBMIT: u32 = 1 << 4;

        #[repr(C)]
        pub struct RbsOption {
            pub value: *const c_char,
            pub title: *const c_char,
        }

        #[repr(C)]
        pub struct RbsAtomDescriptor {
            pub id: *const c_char,
            pub kind: u32,
            pub input_type: u32,
            pub flags: u32,
            pub min_length: u32,
            pub max_length: u32,
            pub caption: *const c_char,
            pub hint: *const c_char,
            pub currency: *const c_char,
            pub show_if: *const c_char,
            pub valid_if: *const c_char,
            pub error_text: *const c_char,
            pub filter: *const c_char,
            pub default_value: *const c_char,
            pub option_count: u32,
            pub options: *const RbsOption,
        }

        /// `rbs_module_t` and `rbs_host_t`: only behind pointers here (the skeleton does not call the host).
        #[repr(C)]
        pub struct RbsModule {
            _opaque: [u8; 0],
        }

        #[repr(C)]
        pub struct RbsHost {
            _opaque: [u8; 0],
        }

        pub type RbsStatus = i32;
        pub const RBS_OK: RbsStatus = 0;
        pub const RBS_INVALID: RbsStatus = 1;
        pub const RBS_FAILED: RbsStatus = 2;

        #[repr(C)]
        pub struct RbsFunctionDescriptor {
            pub name: *const c_char,
            pub symbol: *const c_char,
            pub signature: *const c_char,
            pub flags: u32,
        }

        #[repr(C)]
        pub struct RbsDocumentBuilder {
            pub host_data: *mut c_void,
            pub put: Option<unsafe extern "C" fn(builder: *const RbsDocumentBuilder, key: *const c_char, value: *const c_char) -> bool>,
        }

        #[repr(C)]
        pub struct RbsOperationDescriptor {
            pub id: *const c_char,
            pub title: *const c_char,
            pub category: *const c_char,
            pub atom_count: u32,
            pub atoms: *const RbsAtomDescriptor,
            pub function_count: u32,
            pub functions: *const RbsFunctionDescriptor,
            pub create: Option<unsafe extern "C" fn(*const RbsOperationDescriptor, *const RbsHost, *mut RbsModule) -> *mut c_void>,
            pub destroy: Option<unsafe extern "C" fn(*mut c_void)>,
            pub value_changed: Option<unsafe extern "C" fn(*mut c_void, *const c_char, *const RbsValue, bool) -> RbsStatus>,
            pub action: Option<unsafe extern "C" fn(*mut c_void, *const c_char) -> RbsStatus>,
            pub build_document: Option<unsafe extern "C" fn(*mut c_void, *const RbsDocumentBuilder) -> RbsStatus>,
        }

        #[repr(C)]
        pub struct RbsPluginDescriptor {
            pub id: *const c_char,
            pub name: *const c_char,
            pub version: *const c_char,
            pub vendor: *const c_char,
            pub description: *const c_char,
            pub operation_count: u32,
            pub operations: *const RbsOperationDescriptor,
        }

        #[repr(C)]
        pub struct RbsPluginEntry {
            pub abi_version: RbsVersion,
            pub descriptor: *const RbsPluginDescriptor,
            pub init: Option<unsafe extern "C" fn(host: *const RbsHost) -> bool>,
            pub deinit: Option<unsafe extern "C" fn()>,
            pub get_extension: Option<unsafe extern "C" fn(id: *const c_char) -> *const c_void>,
        }

        /// Static descriptors hold raw pointers, which are not `Sync`; everything behind them is immutable and lives as
        /// long as the image, so sharing them is sound.
        #[repr(transparent)]
        pub struct SyncPtr<T>(pub T);
        unsafe impl<T> Sync for SyncPtr<T> {}

        // The mirror must match the C header (x86-64 / aarch64 Linux): a wrong mirror fails the build, not the host.
        const _: () = {
            assert!(std::mem::size_of::<RbsValue>() == 24);
            assert!(std::mem::size_of::<RbsAtomDescriptor>() == 112);
            assert!(std::mem::size_of::<RbsOperationDescriptor>() == 96);
            assert!(std::mem::size_of::<RbsPluginDescriptor>() == 56);
            assert!(std::mem::size_of::<RbsPluginEntry>() == 48);
        };

        """
}
