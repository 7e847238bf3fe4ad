//! tests.rust.extensions — a test plugin that reaches every extension and host service of the C ABI through the Rust
//! binding (`SDK/rust/rbs-plugin-abi`), so a binding that lags the headers fails a test, not a product team:
//! init/deinit, the host services rbs.accounts/1, rbs.directory/1, rbs.log/1, rbs.clock/1 (looked up with
//! `service`), and the extensions rbs.requirements/1, rbs.document-labels/1, rbs.texts/1, rbs.state/1 (the count
//! of runs opened survives a hot reload) and rbs.function-reads/1 (bankKnown reads bic alone). Its form shows what
//! the services said in its text atoms' captions. Its twins: Tests/Fixtures/extensions (C), ExtensionsCheck (Swift).

use rbs_plugin_abi::*;
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

const OPERATION: &CStr = c"rust.ext";

const fn atom(id: &'static CStr, kind: u32, caption: &'static CStr) -> RbsAtomDescriptor {
    RbsAtomDescriptor::new(id, kind, caption)
}

static ATOMS: SyncPtr<[RbsAtomDescriptor; 6]> = SyncPtr([
    atom(c"today", RBS_ATOM_TEXT, c"Today"),
    atom(c"accounts", RBS_ATOM_TEXT, c"Accounts"),
    atom(c"runs", RBS_ATOM_TEXT, c"Runs"),
    RbsAtomDescriptor { input_type: RBS_INPUT_DIGITS, min_length: 9, max_length: 9, ..atom(c"bic", RBS_ATOM_INPUT, c"BIC") },
    RbsAtomDescriptor { show_if: c"bankKnown".as_ptr(), ..atom(c"bank", RBS_ATOM_TEXT, c"Bank") },
    RbsAtomDescriptor { flags: RBS_ATOM_FLAG_SUBMIT, ..atom(c"send", RBS_ATOM_BUTTON, c"Send") },
]);

static FUNCTIONS: SyncPtr<[RbsFunctionDescriptor; 1]> = SyncPtr([RbsFunctionDescriptor {
    name: c"bankKnown".as_ptr(),
    symbol: c"rust_ext_bank_known".as_ptr(),
    signature: c"bool()".as_ptr(),
    flags: RBS_FUNCTION_INSTANCE,
}]);

/// Whether the directory knew the BIC this run was told last (reads `bic` alone: rbs.function-reads/1).
///
/// # Safety
/// `instance` is one this plugin's create() returned (the host passes it to an instance function).
#[no_mangle]
pub unsafe extern "C" fn rust_ext_bank_known(instance: *mut c_void) -> bool {
    // SAFETY: the host passes a live instance of this plugin, or NULL.
    unsafe { instance.cast::<Run>().as_ref() }.is_some_and(|run| run.bank_known)
}

static OPERATIONS: SyncPtr<[RbsOperationDescriptor; 1]> = SyncPtr([RbsOperationDescriptor {
    id: OPERATION.as_ptr(),
    title: c"Extensions check".as_ptr(),
    category: c"Tests".as_ptr(),
    atom_count: 6,
    atoms: &ATOMS.0 as *const [RbsAtomDescriptor; 6] as *const RbsAtomDescriptor,
    function_count: 1,
    functions: &FUNCTIONS.0 as *const [RbsFunctionDescriptor; 1] as *const RbsFunctionDescriptor,
    create: Some(create),
    destroy: Some(destroy),
    value_changed: Some(value_changed),
    action: None,
    build_document: Some(build_document),
}]);

static DESCRIPTOR: SyncPtr<RbsPluginDescriptor> = SyncPtr(RbsPluginDescriptor {
    id: c"tests.rust.extensions".as_ptr(),
    name: c"Rust extensions".as_ptr(),
    version: c"1.0.0".as_ptr(),
    vendor: c"rbs-host tests".as_ptr(),
    description: c"Every extension and service of the C ABI through the Rust binding.".as_ptr(),
    operation_count: 1,
    operations: &OPERATIONS.0 as *const [RbsOperationDescriptor; 1] as *const RbsOperationDescriptor,
});

// ---- extensions ----

static FEATURES: SyncPtr<[*const c_char; 4]> = SyncPtr([
    RBS_SERVICE_ACCOUNTS.as_ptr(),
    RBS_SERVICE_DIRECTORY.as_ptr(),
    RBS_SERVICE_LOG.as_ptr(),
    RBS_SERVICE_CLOCK.as_ptr(),
]);

static REQUIREMENTS: SyncPtr<RbsRequirementsExtension> = SyncPtr(RbsRequirementsExtension {
    count: 4,
    features: &FEATURES.0 as *const [*const c_char; 4] as *const *const c_char,
});

static LABELS: SyncPtr<[RbsDocumentLabel; 2]> = SyncPtr([
    RbsDocumentLabel {
        operation_id: OPERATION.as_ptr(),
        key: c"bic".as_ptr(),
        label: ptr::null(),
        role: RBS_FIELD_ROLE_OTHER,
        atom_id: c"bic".as_ptr(),
    },
    RbsDocumentLabel {
        operation_id: OPERATION.as_ptr(),
        key: c"day".as_ptr(),
        label: c"Day".as_ptr(),
        role: RBS_FIELD_ROLE_OTHER,
        atom_id: ptr::null(),
    },
]);

static LABELS_EXTENSION: SyncPtr<RbsDocumentLabelsExtension> = SyncPtr(RbsDocumentLabelsExtension {
    count: 2,
    labels: &LABELS.0 as *const [RbsDocumentLabel; 2] as *const RbsDocumentLabel,
});

static RUSSIAN: SyncPtr<[RbsTranslatedText; 3]> = SyncPtr([
    RbsTranslatedText::new(RBS_TEXT_OPERATION_TITLE, OPERATION, None, None, c"Проверка расширений"),
    RbsTranslatedText::new(RBS_TEXT_ATOM_CAPTION, OPERATION, Some(c"bic"), None, c"БИК"),
    RbsTranslatedText::new(RBS_TEXT_DOCUMENT_LABEL, OPERATION, Some(c"day"), None, c"День"),
]);

static LANGUAGES: SyncPtr<[RbsLanguageTexts; 1]> = SyncPtr([RbsLanguageTexts {
    language: c"ru".as_ptr(),
    count: 3,
    texts: &RUSSIAN.0 as *const [RbsTranslatedText; 3] as *const RbsTranslatedText,
}]);

static TEXTS: SyncPtr<RbsTextsExtension> = SyncPtr(RbsTextsExtension {
    language_count: 1,
    languages: &LANGUAGES.0 as *const [RbsLanguageTexts; 1] as *const RbsLanguageTexts,
});

/// Runs opened by this plugin in this process, across hot reloads (rbs.state/1 carries it to the next version).
static RUNS: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn save_state(writer: *mut c_void, write: RbsStateWriteFn) -> bool {
    let bytes = RUNS.load(Ordering::SeqCst).to_le_bytes();
    // SAFETY: `writer` is the host's, valid for this call; the bytes live for the call.
    unsafe { write(writer, bytes.as_ptr(), bytes.len()) }
}

unsafe extern "C" fn load_state(bytes: *const u8, size: usize) -> bool {
    if bytes.is_null() || size != 4 {
        return false;
    }
    // SAFETY: the host lends `size` readable bytes for the call.
    let saved = unsafe { std::slice::from_raw_parts(bytes, size) };
    let Ok(saved) = <[u8; 4]>::try_from(saved) else { return false };
    RUNS.store(u32::from_le_bytes(saved), Ordering::SeqCst);
    true
}

static BANK_KNOWN_READS: SyncPtr<[*const c_char; 1]> = SyncPtr([c"bic".as_ptr()]);

static READS: SyncPtr<[RbsFunctionReads; 1]> = SyncPtr([RbsFunctionReads {
    operation_id: OPERATION.as_ptr(),
    function: c"bankKnown".as_ptr(),
    atom_count: 1,
    atom_ids: &BANK_KNOWN_READS.0 as *const [*const c_char; 1] as *const *const c_char,
}]);

static FUNCTION_READS: SyncPtr<RbsFunctionReadsExtension> = SyncPtr(RbsFunctionReadsExtension {
    count: 1,
    functions: &READS.0 as *const [RbsFunctionReads; 1] as *const RbsFunctionReads,
});

static STATE: SyncPtr<RbsStateExtension> = SyncPtr(RbsStateExtension { save: Some(save_state), load: Some(load_state) });

unsafe extern "C" fn get_extension(id: *const c_char) -> *const c_void {
    if id.is_null() {
        return ptr::null();
    }
    // SAFETY: the host passes a NUL-terminated id that lives for the call.
    let id = unsafe { CStr::from_ptr(id) };
    if id == RBS_EXT_REQUIREMENTS {
        &REQUIREMENTS.0 as *const RbsRequirementsExtension as *const c_void
    } else if id == RBS_EXT_DOCUMENT_LABELS {
        &LABELS_EXTENSION.0 as *const RbsDocumentLabelsExtension as *const c_void
    } else if id == RBS_EXT_TEXTS {
        &TEXTS.0 as *const RbsTextsExtension as *const c_void
    } else if id == RBS_EXT_STATE {
        &STATE.0 as *const RbsStateExtension as *const c_void
    } else if id == RBS_EXT_FUNCTION_READS {
        &FUNCTION_READS.0 as *const RbsFunctionReadsExtension as *const c_void
    } else {
        ptr::null()
    }
}

// ---- init / deinit: the host table, kept for the services ----

static HOST: AtomicPtr<RbsHost> = AtomicPtr::new(ptr::null_mut());

fn log(message: &str) {
    let host = HOST.load(Ordering::SeqCst);
    // SAFETY: `host` is the table init() received, valid until deinit().
    let Some(service) = (unsafe { service::<RbsLogService>(host, RBS_SERVICE_LOG) }) else { return };
    let (Some(write), Ok(message)) = (service.write, CString::new(message)) else { return };
    // SAFETY: the service's own context; NUL-terminated strings that live for the call.
    unsafe { write(service.context, RBS_LOG_INFO, c"rust-extensions".as_ptr(), message.as_ptr()) };
}

unsafe extern "C" fn init(host: *const RbsHost) -> bool {
    if host.is_null() {
        return false;
    }
    HOST.store(host.cast_mut(), Ordering::SeqCst);
    log("init");
    true
}

unsafe extern "C" fn deinit() {
    log("deinit");
    HOST.store(ptr::null_mut(), Ordering::SeqCst);
}

static ENTRY: SyncPtr<RbsPluginEntry> = SyncPtr(RbsPluginEntry {
    abi_version: RbsVersion { major: RBS_ABI_MAJOR, minor: RBS_ABI_MINOR, patch: RBS_ABI_PATCH },
    descriptor: &DESCRIPTOR.0,
    init: Some(init),
    deinit: Some(deinit),
    get_extension: Some(get_extension),
});

#[no_mangle]
pub extern "C" fn rbs_plugin_entry() -> *const RbsPluginEntry {
    &ENTRY.0
}

// ---- one run ----

struct Run {
    host: *const RbsHost,
    module: *mut RbsModule,
    bic: String,
    day: String,
    bank_known: bool,
}

/// A string the host owns, as Rust text ("" for NULL).
fn text(pointer: *const c_char) -> String {
    if pointer.is_null() {
        return String::new();
    }
    // SAFETY: the host's NUL-terminated strings live until the service's next call.
    unsafe { CStr::from_ptr(pointer) }.to_string_lossy().into_owned()
}

impl Run {
    fn set_caption(&self, atom: &CStr, caption: &str) {
        // SAFETY: `host` is valid from create() until destroy().
        let Some(set_caption) = (unsafe { self.host.as_ref() }).and_then(|host| host.set_caption) else { return };
        let Ok(caption) = CString::new(caption) else { return };
        // SAFETY: every pointer lives for the call; the host copies what it keeps.
        unsafe { set_caption(self.host, self.module, atom.as_ptr(), caption.as_ptr()) };
    }

    fn set_error(&self, atom: &CStr, message: Option<&str>) {
        // SAFETY: as in set_caption.
        let Some(set_error) = (unsafe { self.host.as_ref() }).and_then(|host| host.set_error) else { return };
        let message = message.and_then(|text| CString::new(text).ok());
        let pointer = message.as_ref().map_or(ptr::null(), |text| text.as_ptr());
        // SAFETY: as in set_caption; a NULL message clears the mark.
        unsafe { set_error(self.host, self.module, atom.as_ptr(), pointer) };
    }

    /// "2026-05-28 at 1780000000000 ms" from rbs.clock/1.
    fn clock(&self) -> Option<(String, i64)> {
        // SAFETY: `host` is valid from create() until destroy(); the service table lives as long as the host.
        let clock = unsafe { service::<RbsClockService>(self.host, RBS_SERVICE_CLOCK) }?;
        let (today, now) = (clock.today?, clock.now_unix_ms?);
        let mut out = [0 as c_char; 11];
        // SAFETY: `out` has the 11 bytes the header asks for.
        unsafe { today(clock.context, out.as_mut_ptr()) };
        // SAFETY: the host wrote a NUL-terminated date.
        let day = unsafe { CStr::from_ptr(out.as_ptr()) }.to_string_lossy().into_owned();
        Some((day, unsafe { now(clock.context) }))
    }

    /// "4 accounts, the first 40817810438000000001 (RUB), found again by number" from rbs.accounts/1.
    fn accounts(&self) -> Option<String> {
        // SAFETY: as in clock.
        let accounts = unsafe { service::<RbsAccountsService>(self.host, RBS_SERVICE_ACCOUNTS) }?;
        let (count, at, find) = (accounts.count?, accounts.at?, accounts.find?);
        // SAFETY: the service's own context.
        let count = unsafe { count(accounts.context) };
        let empty = || RbsAccount {
            number: ptr::null(),
            currency: ptr::null(),
            balance: ptr::null(),
            owner: ptr::null(),
            title: ptr::null(),
            blocked: false,
        };
        let mut first = empty();
        // SAFETY: `first` is ours to fill.
        if count == 0 || !unsafe { at(accounts.context, 0, &mut first) } {
            return Some(format!("{count} accounts"));
        }
        let (number, currency) = (text(first.number), text(first.currency));
        let key = CString::new(number.clone()).ok()?;
        let mut again = empty();
        // SAFETY: as above; `key` lives for the call.
        let found = unsafe { find(accounts.context, key.as_ptr(), &mut again) } && text(again.number) == number;
        Some(format!("{count} accounts, the first {number} ({currency}){}", if found { ", found again by number" } else { "" }))
    }

    /// The bank of `bic` from rbs.directory/1.
    fn bank(&self, bic: &str) -> Option<String> {
        // SAFETY: as in clock.
        let directory = unsafe { service::<RbsDirectoryService>(self.host, RBS_SERVICE_DIRECTORY) }?;
        let lookup = directory.lookup?;
        let key = CString::new(bic).ok()?;
        let mut bank = RbsBank { bic: ptr::null(), name: ptr::null(), corr_account: ptr::null(), city: ptr::null() };
        // SAFETY: the service's own context; `bank` is ours to fill.
        if !unsafe { lookup(directory.context, key.as_ptr(), &mut bank) } {
            return None;
        }
        Some(format!("{}, {}", text(bank.name), text(bank.city)))
    }
}

unsafe extern "C" fn create(_operation: *const RbsOperationDescriptor, host: *const RbsHost, module: *mut RbsModule) -> *mut c_void {
    if host.is_null() || module.is_null() {
        return ptr::null_mut();
    }
    let runs = RUNS.fetch_add(1, Ordering::SeqCst) + 1;
    let mut run = Box::new(Run { host, module, bic: String::new(), day: String::new(), bank_known: false });
    match run.clock() {
        Some((day, now)) => {
            run.set_caption(c"today", &format!("{day} at {now} ms"));
            run.day = day;
        }
        None => run.set_caption(c"today", "no rbs.clock/1"),
    }
    run.set_caption(c"accounts", &run.accounts().unwrap_or_else(|| String::from("no rbs.accounts/1")));
    run.set_caption(c"runs", &format!("run {runs}"));
    Box::into_raw(run).cast::<c_void>()
}

unsafe extern "C" fn destroy(instance: *mut c_void) {
    if !instance.is_null() {
        // SAFETY: made by Box::into_raw in create(); destroyed once.
        drop(unsafe { Box::from_raw(instance.cast::<Run>()) });
    }
}

unsafe extern "C" fn value_changed(instance: *mut c_void, atom: *const c_char, value: *const RbsValue, commit: bool) -> RbsStatus {
    if instance.is_null() || atom.is_null() || value.is_null() {
        return RBS_FAILED;
    }
    // SAFETY: our instance, alive until destroy(); the atom and value are lent for the call.
    let run = unsafe { &mut *instance.cast::<Run>() };
    if !commit || unsafe { CStr::from_ptr(atom) } != c"bic" {
        return RBS_OK;
    }
    let value = unsafe { &*value };
    if value.type_ != RBS_VALUE_TEXT {
        return RBS_INVALID;
    }
    // SAFETY: TEXT's member; `length` readable bytes at `data` for the call.
    let lent = unsafe { value.as_.text };
    let bytes = if lent.data.is_null() {
        &[][..]
    } else {
        unsafe { std::slice::from_raw_parts(lent.data.cast::<u8>(), usize::try_from(lent.length).unwrap_or(0)) }
    };
    run.bic = String::from_utf8_lossy(bytes).into_owned();
    let bank = run.bank(&run.bic);
    run.bank_known = bank.is_some();
    match bank {
        Some(bank) => {
            log(&format!("looked up {}", run.bic));
            run.set_caption(c"bank", &bank);
            run.set_error(c"bic", None);
        }
        // rbs.run-texts/1: the mark in English (this plugin's own language) and Russian.
        // SAFETY: host and module are the ones create() received; this runs inside the host's call.
        None => {
            let _ = unsafe {
                set_run_text(run.host, run.module, RunTextKind::Error, Some(c"bic"),
                             &[(c"en", c"no bank with this BIC in the directory"), (c"ru", c"банка с таким БИК нет в справочнике")])
            };
        }
    }
    RBS_OK
}

unsafe extern "C" fn build_document(instance: *mut c_void, builder: *const RbsDocumentBuilder) -> RbsStatus {
    if instance.is_null() || builder.is_null() {
        return RBS_FAILED;
    }
    // SAFETY: as in value_changed; the builder lives for this call.
    let run = unsafe { &*instance.cast::<Run>() };
    let Some(put) = (unsafe { &*builder }).put else { return RBS_FAILED };
    if run.bic.is_empty() {
        return RBS_INVALID;
    }
    for (key, value) in [(c"bic", &run.bic), (c"day", &run.day)] {
        let Ok(value) = CString::new(value.as_str()) else { return RBS_FAILED };
        // SAFETY: NUL-terminated strings that live for the call; the host copies them.
        if !unsafe { put(builder, key.as_ptr(), value.as_ptr()) } {
            return RBS_FAILED;
        }
    }
    RBS_OK
}
