//! The Rust binding of rbs-host's C ABI 1.3: `#[repr(C)]` mirrors of `SDK/Sources/CRBSPlugin/include/rbs_plugin.h`,
//! shared by every Rust plugin (the example `card-block`, and a copy in each skeleton `rbs-host plugin new --lang rust` writes),
//! so the mirror is written and checked once. No crates: a path dependency builds offline.
//!
//! Field order and types match the header exactly: C enums are stored in `uint32_t` fields, so they are `u32` here;
//! `const char *` is `*const c_char`; a function pointer that may be NULL is `Option<unsafe extern "C" fn ...>`
//! (the null-pointer optimisation makes it one pointer wide, NULL being `None`). Released structs never change, so
//! this file only grows, as later ABI versions add constants and extension structs.
#![allow(dead_code)]

use std::ffi::{c_char, c_void};

// ---- rbs/version.h ----

pub const RBS_ABI_MAJOR: u32 = 1;
pub const RBS_ABI_MINOR: u32 = 6;
pub const RBS_ABI_PATCH: u32 = 0;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct RbsVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

/// `rbs_version_is_compatible()`: whether a host of this ABI loads a plugin built against `plugin` — the same major;
/// the minors do not matter (growth within a major is by extensions; see rbs/version.h).
pub const fn rbs_version_is_compatible(plugin: RbsVersion) -> bool {
    plugin.major == RBS_ABI_MAJOR
}

// ---- rbs/value.h ----

pub const RBS_VALUE_NONE: u32 = 0;
pub const RBS_VALUE_TEXT: u32 = 1;
pub const RBS_VALUE_INTEGER: u32 = 2;
pub const RBS_VALUE_BOOL: u32 = 3;
pub const RBS_VALUE_MONEY: u32 = 4;
pub const RBS_VALUE_DATE: u32 = 5;
pub const RBS_VALUE_DECIMAL: u32 = 6;

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

// ---- rbs/atom.h ----

pub const RBS_ATOM_TEXT: u32 = 1;
pub const RBS_ATOM_INPUT: u32 = 2;
pub const RBS_ATOM_ENUM: u32 = 3;
pub const RBS_ATOM_TOGGLE: u32 = 4;
pub const RBS_ATOM_ACCOUNT: u32 = 5;
pub const RBS_ATOM_BUTTON: u32 = 6;

pub const RBS_INPUT_TEXT: u32 = 0;
pub const RBS_INPUT_DIGITS: u32 = 1;
pub const RBS_INPUT_NUMBER: u32 = 2;
pub const RBS_INPUT_AMOUNT: u32 = 3;
pub const RBS_INPUT_DATE: u32 = 4;

pub const RBS_ATOM_FLAG_OPTIONAL: u32 = 1 << 0;
pub const RBS_ATOM_FLAG_WIDE: u32 = 1 << 1;
pub const RBS_ATOM_FLAG_CAPITALIZE: u32 = 1 << 2;
pub const RBS_ATOM_FLAG_SECRET: u32 = 1 << 3;
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

impl RbsAtomDescriptor {
    /// An atom with its id, kind and caption and nothing else; set the rest with struct-update syntax
    /// (`RbsAtomDescriptor { hint: …, ..RbsAtomDescriptor::new(c"amount", RBS_ATOM_INPUT, c"Сумма") }`).
    pub const fn new(id: &'static std::ffi::CStr, kind: u32, caption: &'static std::ffi::CStr) -> Self {
        RbsAtomDescriptor {
            id: id.as_ptr(),
            kind,
            input_type: 0,
            flags: 0,
            min_length: 0,
            max_length: 0,
            caption: caption.as_ptr(),
            hint: std::ptr::null(),
            currency: std::ptr::null(),
            show_if: std::ptr::null(),
            valid_if: std::ptr::null(),
            error_text: std::ptr::null(),
            filter: std::ptr::null(),
            default_value: std::ptr::null(),
            option_count: 0,
            options: std::ptr::null(),
        }
    }
}

// ---- rbs/host.h ----

/// `rbs_module_t`: opaque, only ever behind a pointer.
#[repr(C)]
pub struct RbsModule {
    _opaque: [u8; 0],
}

pub const RBS_LOG_DEBUG: u32 = 0;
pub const RBS_LOG_INFO: u32 = 1;
pub const RBS_LOG_WARNING: u32 = 2;
pub const RBS_LOG_ERROR: u32 = 3;

/// `rbs_host_t`. The header promises every function pointer is non-NULL; they are still `Option`s so a broken host
/// cannot make this plugin call address 0.
#[repr(C)]
pub struct RbsHost {
    pub abi_version: RbsVersion,
    pub name: *const c_char,
    pub version: *const c_char,
    pub host_data: *mut c_void,
    pub get_service:
        Option<unsafe extern "C" fn(host: *const RbsHost, id: *const c_char) -> *const c_void>,
    pub register_service: Option<
        unsafe extern "C" fn(
            host: *const RbsHost,
            id: *const c_char,
            service: *const c_void,
        ) -> bool,
    >,
    pub log: Option<unsafe extern "C" fn(host: *const RbsHost, level: u32, message: *const c_char)>,
    pub get_value: Option<
        unsafe extern "C" fn(
            host: *const RbsHost,
            module: *mut RbsModule,
            atom_id: *const c_char,
            out: *mut RbsValue,
        ) -> bool,
    >,
    pub set_value: Option<
        unsafe extern "C" fn(
            host: *const RbsHost,
            module: *mut RbsModule,
            atom_id: *const c_char,
            value: *const RbsValue,
        ) -> bool,
    >,
    pub set_caption: Option<
        unsafe extern "C" fn(
            host: *const RbsHost,
            module: *mut RbsModule,
            atom_id: *const c_char,
            caption: *const c_char,
        ) -> bool,
    >,
    pub set_visible: Option<
        unsafe extern "C" fn(
            host: *const RbsHost,
            module: *mut RbsModule,
            atom_id: *const c_char,
            visible: bool,
        ) -> bool,
    >,
    pub set_error: Option<
        unsafe extern "C" fn(
            host: *const RbsHost,
            module: *mut RbsModule,
            atom_id: *const c_char,
            message: *const c_char,
        ) -> bool,
    >,
}

// ---- rbs/services.h: rbs.cards/1 ----

pub const RBS_SERVICE_CARDS: &std::ffi::CStr = c"rbs.cards/1";

/// `rbs_card_t`: one of the signer's cards, masked; strings owned by the host until the next call of the service.
#[repr(C)]
pub struct RbsCard {
    pub id: *const c_char,
    pub masked: *const c_char,
    pub account: *const c_char,
    pub blocked: bool,
}

/// `rbs_cards_service_t`: the cards of the party the form runs for.
#[repr(C)]
pub struct RbsCardsService {
    pub context: *mut c_void,
    pub count: Option<unsafe extern "C" fn(context: *mut c_void) -> u32>,
    pub at: Option<unsafe extern "C" fn(context: *mut c_void, index: u32, out: *mut RbsCard) -> bool>,
}

// ---- rbs/services.h: rbs.accounts/1, rbs.directory/1, rbs.log/1, rbs.clock/1 ----
//
// Looked up with `host.get_service(host, RBS_SERVICE_*)` (NULL when the host does not offer it). Strings a service
// writes into an out-struct are owned by the host and valid until the next call of that service.

pub const RBS_SERVICE_ACCOUNTS: &std::ffi::CStr = c"rbs.accounts/1";

/// `rbs_account_t`: one of the signer's accounts.
#[repr(C)]
pub struct RbsAccount {
    /// 20 digits.
    pub number: *const c_char,
    /// ISO 4217 code.
    pub currency: *const c_char,
    /// Decimal text with a '.' separator ("125000.00").
    pub balance: *const c_char,
    /// The holder's name.
    pub owner: *const c_char,
    /// A short name ("Текущий счёт").
    pub title: *const c_char,
    /// No debits allowed.
    pub blocked: bool,
}

/// `rbs_accounts_service_t`: the accounts of the party the form runs for.
#[repr(C)]
pub struct RbsAccountsService {
    pub context: *mut c_void,
    pub count: Option<unsafe extern "C" fn(context: *mut c_void) -> u32>,
    pub at: Option<unsafe extern "C" fn(context: *mut c_void, index: u32, out: *mut RbsAccount) -> bool>,
    pub find: Option<unsafe extern "C" fn(context: *mut c_void, number: *const c_char, out: *mut RbsAccount) -> bool>,
}

pub const RBS_SERVICE_DIRECTORY: &std::ffi::CStr = c"rbs.directory/1";

/// `rbs_bank_t`: a bank of the Bank of Russia's directory.
#[repr(C)]
pub struct RbsBank {
    /// 9 digits.
    pub bic: *const c_char,
    pub name: *const c_char,
    /// 20 digits, or "" for the Bank of Russia's own offices.
    pub corr_account: *const c_char,
    pub city: *const c_char,
}

/// `rbs_directory_service_t`: banks by BIC.
#[repr(C)]
pub struct RbsDirectoryService {
    pub context: *mut c_void,
    pub lookup: Option<unsafe extern "C" fn(context: *mut c_void, bic: *const c_char, out: *mut RbsBank) -> bool>,
}

pub const RBS_SERVICE_LOG: &std::ffi::CStr = c"rbs.log/1";

/// `rbs_log_service_t`: the host's log, from any thread.
#[repr(C)]
pub struct RbsLogService {
    pub context: *mut c_void,
    /// `level`: `RBS_LOG_*`; `source` and `message`: NUL-terminated UTF-8.
    pub write: Option<unsafe extern "C" fn(context: *mut c_void, level: u32, source: *const c_char, message: *const c_char)>,
}

pub const RBS_SERVICE_CLOCK: &std::ffi::CStr = c"rbs.clock/1";

/// `rbs_clock_service_t`: the host's clock (a test host may freeze it).
#[repr(C)]
pub struct RbsClockService {
    pub context: *mut c_void,
    /// Milliseconds since 1970-01-01T00:00:00Z.
    pub now_unix_ms: Option<unsafe extern "C" fn(context: *mut c_void) -> i64>,
    /// Writes today's date "YYYY-MM-DD" in the host's time zone and a NUL into `out` (11 bytes).
    pub today: Option<unsafe extern "C" fn(context: *mut c_void, out: *mut c_char)>,
}

pub const RBS_SERVICE_RUN_TEXTS: &std::ffi::CStr = c"rbs.run-texts/1";
/// The most variants of one run-time text (one per language).
pub const RBS_RUN_TEXT_MAX_VARIANTS: u32 = 32;

/// `rbs_text_variant_t`: one language's version of a caption or mark set while a form runs.
#[repr(C)]
pub struct RbsTextVariant {
    /// An ISO 639-1 code in lowercase: "ru", "en".
    pub language: *const c_char,
    /// UTF-8, 1..RBS_TEXT_MAX_BYTES bytes, no control character.
    pub text: *const c_char,
}

/// `rbs_run_texts_service_t` (ABI 1.4): `host->set_caption` and `host->set_error` with the text in each language the
/// plugin writes; the host shows the person's, and the first to a reader of another language.
#[repr(C)]
pub struct RbsRunTextsService {
    pub context: *mut c_void,
    pub set_caption: Option<RbsRunTextFn>,
    pub set_error: Option<RbsRunTextFn>,
}

/// The signature of both `rbs_run_texts_service_t` functions: `count` variants for `atom_id` of `module`.
pub type RbsRunTextFn = unsafe extern "C" fn(
    context: *mut c_void,
    module: *mut RbsModule,
    atom_id: *const c_char,
    count: u32,
    variants: *const RbsTextVariant,
) -> bool;

/// What a run-time text replaces: an atom's caption, or a mark (an atom's, or the whole form's with no atom).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RunTextKind {
    Caption,
    Error,
}

/// Sets a caption or a mark in every language in `variants` (language, text), the first being the plugin's own:
/// through `rbs.run-texts/1` when the host offers it, else (a host older than ABI 1.4) `set_caption`/`set_error`
/// with the first text. `atom` None marks the whole form (`RunTextKind::Error` only). False when the host refused.
///
/// # Safety
/// `host` and `module` are the pointers `create` received, valid until `destroy`; call it only from inside a call
/// the host made into the plugin.
pub unsafe fn set_run_text(
    host: *const RbsHost,
    module: *mut RbsModule,
    kind: RunTextKind,
    atom: Option<&std::ffi::CStr>,
    variants: &[(&std::ffi::CStr, &std::ffi::CStr)],
) -> bool {
    let Some(first) = variants.first() else { return false };
    let atom = atom.map_or(std::ptr::null(), std::ffi::CStr::as_ptr);
    if let Some(service) = unsafe { service::<RbsRunTextsService>(host, RBS_SERVICE_RUN_TEXTS) } {
        let table: Vec<RbsTextVariant> = variants
            .iter()
            .map(|(language, text)| RbsTextVariant { language: language.as_ptr(), text: text.as_ptr() })
            .collect();
        let call = match kind {
            RunTextKind::Caption => service.set_caption,
            RunTextKind::Error => service.set_error,
        };
        let Ok(count) = u32::try_from(table.len()) else { return false };
        return call.is_some_and(|call| unsafe { call(service.context, module, atom, count, table.as_ptr()) });
    }
    let Some(host_table) = (unsafe { host.as_ref() }) else { return false };
    match kind {
        RunTextKind::Caption => host_table.set_caption.is_some_and(|call| unsafe { call(host, module, atom, first.1.as_ptr()) }),
        RunTextKind::Error => host_table.set_error.is_some_and(|call| unsafe { call(host, module, atom, first.1.as_ptr()) }),
    }
}

/// The service `id` of the host, as `T` (one of the `Rbs*Service` structs above, matching `id`), or None when the
/// host does not offer it.
///
/// # Safety
/// `host` is the pointer `init` received (valid until `deinit`), and `T` is the struct the header gives for `id`.
pub unsafe fn service<T>(host: *const RbsHost, id: &std::ffi::CStr) -> Option<&'static T> {
    let get_service = unsafe { host.as_ref() }?.get_service?;
    unsafe { get_service(host, id.as_ptr()).cast::<T>().as_ref() }
}

// ---- rbs/operation.h ----

pub type RbsStatus = i32;
pub const RBS_OK: RbsStatus = 0;
pub const RBS_INVALID: RbsStatus = 1;
pub const RBS_FAILED: RbsStatus = 2;

pub const RBS_FUNCTION_INSTANCE: u32 = 1 << 0;

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
    pub put: Option<
        unsafe extern "C" fn(
            builder: *const RbsDocumentBuilder,
            key: *const c_char,
            value: *const c_char,
        ) -> bool,
    >,
}

pub type CreateFn = unsafe extern "C" fn(
    operation: *const RbsOperationDescriptor,
    host: *const RbsHost,
    module: *mut RbsModule,
) -> *mut c_void;
pub type DestroyFn = unsafe extern "C" fn(instance: *mut c_void);
pub type ValueChangedFn = unsafe extern "C" fn(
    instance: *mut c_void,
    atom_id: *const c_char,
    value: *const RbsValue,
    commit: bool,
) -> RbsStatus;
pub type ActionFn =
    unsafe extern "C" fn(instance: *mut c_void, atom_id: *const c_char) -> RbsStatus;
pub type BuildDocumentFn =
    unsafe extern "C" fn(instance: *mut c_void, builder: *const RbsDocumentBuilder) -> RbsStatus;

#[repr(C)]
pub struct RbsOperationDescriptor {
    pub id: *const c_char,
    pub title: *const c_char,
    pub category: *const c_char,
    pub atom_count: u32,
    pub atoms: *const RbsAtomDescriptor,
    pub function_count: u32,
    pub functions: *const RbsFunctionDescriptor,
    pub create: Option<CreateFn>,
    pub destroy: Option<DestroyFn>,
    pub value_changed: Option<ValueChangedFn>,
    pub action: Option<ActionFn>,
    pub build_document: Option<BuildDocumentFn>,
}

// ---- rbs/entry.h ----

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

// ---- rbs/ext/requirements.h ----

/// The extension id a plugin answers in `get_extension` with its `RbsRequirementsExtension`.
pub const RBS_EXT_REQUIREMENTS: &std::ffi::CStr = c"rbs.requirements/1";

/// What a plugin cannot work without: "rbs.abi/1.1", or a host service id. An older host refuses the plugin and
/// names the first feature it lacks.
#[repr(C)]
pub struct RbsRequirementsExtension {
    pub count: u32,
    pub features: *const *const c_char,
}

// ---- rbs/ext/document_labels.h (ABI 1.1) ----

/// The extension id a plugin answers in `get_extension` with its `RbsDocumentLabelsExtension`.
pub const RBS_EXT_DOCUMENT_LABELS: &std::ffi::CStr = c"rbs.document-labels/1";

pub const RBS_FIELD_ROLE_OTHER: u32 = 0;
pub const RBS_FIELD_ROLE_AMOUNT: u32 = 1;
pub const RBS_FIELD_ROLE_CURRENCY: u32 = 2;
pub const RBS_FIELD_ROLE_DEBIT_ACCOUNT: u32 = 3;
pub const RBS_FIELD_ROLE_PAYEE: u32 = 4;
pub const RBS_FIELD_ROLE_PAYEE_ACCOUNT: u32 = 5;
pub const RBS_FIELD_ROLE_PAYEE_BANK: u32 = 6;
pub const RBS_FIELD_ROLE_PURPOSE: u32 = 7;
pub const RBS_FIELD_ROLE_PAYEE_TAX_ID: u32 = 8;
pub const RBS_FIELD_ROLE_CARD_NUMBER: u32 = 9;

/// One field of one operation's document, for the host's review before signing: a label (NULL: the caption of
/// `atom_id`, else the key), a role (`RBS_FIELD_ROLE_*`), and the atom the value comes from (NULL when none).
#[repr(C)]
pub struct RbsDocumentLabel {
    pub operation_id: *const c_char,
    pub key: *const c_char,
    pub label: *const c_char,
    pub role: u32,
    pub atom_id: *const c_char,
}

/// What `get_extension(RBS_EXT_DOCUMENT_LABELS)` returns: `count` labels, static data.
#[repr(C)]
pub struct RbsDocumentLabelsExtension {
    pub count: u32,
    pub labels: *const RbsDocumentLabel,
}

// ---- rbs/ext/texts.h (ABI 1.2) ----

/// The extension id a plugin answers in `get_extension` with its `RbsTextsExtension`: its texts in more languages.
pub const RBS_EXT_TEXTS: &std::ffi::CStr = c"rbs.texts/1";
/// The most bytes of one translated text (UTF-8, without the NUL).
pub const RBS_TEXT_MAX_BYTES: usize = 1024;

pub const RBS_TEXT_OPERATION_TITLE: u32 = 1;
pub const RBS_TEXT_OPERATION_CATEGORY: u32 = 2;
pub const RBS_TEXT_ATOM_CAPTION: u32 = 3;
pub const RBS_TEXT_ATOM_HINT: u32 = 4;
pub const RBS_TEXT_ATOM_ERROR: u32 = 5;
pub const RBS_TEXT_OPTION_TITLE: u32 = 6;
pub const RBS_TEXT_DOCUMENT_LABEL: u32 = 7;

/// One translated text of one operation: `what` (`RBS_TEXT_*`), the atom id or document key it names (`target`,
/// NULL for the operation's title and category), the option's value for an option title (else NULL), the text.
#[repr(C)]
pub struct RbsTranslatedText {
    pub what: u32,
    pub operation_id: *const c_char,
    pub target: *const c_char,
    pub option: *const c_char,
    pub text: *const c_char,
}

impl RbsTranslatedText {
    /// An entry of `RbsLanguageTexts::texts`, in a `static` (`option`: only for `RBS_TEXT_OPTION_TITLE`).
    pub const fn new(what: u32, operation_id: &'static std::ffi::CStr, target: Option<&'static std::ffi::CStr>,
                     option: Option<&'static std::ffi::CStr>, text: &'static std::ffi::CStr) -> Self {
        RbsTranslatedText {
            what,
            operation_id: operation_id.as_ptr(),
            target: match target { Some(target) => target.as_ptr(), None => std::ptr::null() },
            option: match option { Some(option) => option.as_ptr(), None => std::ptr::null() },
            text: text.as_ptr(),
        }
    }
}

/// The translations into one language (an ISO 639-1 code in lowercase: "ru", "en").
#[repr(C)]
pub struct RbsLanguageTexts {
    pub language: *const c_char,
    pub count: u32,
    pub texts: *const RbsTranslatedText,
}

/// What `get_extension(RBS_EXT_TEXTS)` returns: `language_count` languages, static data.
#[repr(C)]
pub struct RbsTextsExtension {
    pub language_count: u32,
    pub languages: *const RbsLanguageTexts,
}

// ---- rbs/ext/state.h (ABI 1.0) ----

/// The extension id a plugin answers in `get_extension` with its `RbsStateExtension`: state handed from the version in
/// service to the next one at a hot reload.
pub const RBS_EXT_STATE: &std::ffi::CStr = c"rbs.state/1";

/// `rbs_state_write_fn`: appends `size` bytes to the saved state; false when the host cannot take them.
pub type RbsStateWriteFn = unsafe extern "C" fn(writer: *mut c_void, bytes: *const u8, size: usize) -> bool;

/// What `get_extension(RBS_EXT_STATE)` returns. `save` writes the state with `write(writer, …)` any number of times
/// (false: the new version starts empty and the host says so); `load` restores bytes an earlier version saved
/// (borrowed; false when it cannot read them).
#[repr(C)]
pub struct RbsStateExtension {
    pub save: Option<unsafe extern "C" fn(writer: *mut c_void, write: RbsStateWriteFn) -> bool>,
    pub load: Option<unsafe extern "C" fn(bytes: *const u8, size: usize) -> bool>,
}

// ---- rbs/ext/function_reads.h (ABI 1.3) ----

pub const RBS_EXT_FUNCTION_READS: &std::ffi::CStr = c"rbs.function-reads/1";

/// The atoms one function of the run (`RBS_FUNCTION_INSTANCE`) reads: the host calls it again only when one of
/// them changed.
#[repr(C)]
pub struct RbsFunctionReads {
    pub operation_id: *const c_char,
    pub function: *const c_char,
    pub atom_count: u32,
    pub atom_ids: *const *const c_char,
}

/// What `get_extension(RBS_EXT_FUNCTION_READS)` returns: `count` entries, static data.
#[repr(C)]
pub struct RbsFunctionReadsExtension {
    pub count: u32,
    pub functions: *const RbsFunctionReads,
}

// ---- rbs/ext/recorded_atoms.h (ABI 1.5) ----

pub const RBS_EXT_RECORDED_ATOMS: &std::ffi::CStr = c"rbs.recorded-atoms/1";

/// The atoms of one operation whose `value_changed` only records the value: the host may hand such a value over
/// with its next call into the run instead of at once.
#[repr(C)]
pub struct RbsRecordedAtoms {
    pub operation_id: *const c_char,
    pub atom_count: u32,
    pub atom_ids: *const *const c_char,
}

/// What `get_extension(RBS_EXT_RECORDED_ATOMS)` returns: `count` entries, static data.
#[repr(C)]
pub struct RbsRecordedAtomsExtension {
    pub count: u32,
    pub operations: *const RbsRecordedAtoms,
}

// ---- rbs/ext/amount_currency.h (ABI 1.6) ----

pub const RBS_EXT_AMOUNT_CURRENCY: &std::ffi::CStr = c"rbs.amount-currency/1";

/// An amount atom that takes the currency of the account chosen in an account atom of the same operation.
#[repr(C)]
pub struct RbsAmountCurrency {
    pub operation_id: *const c_char,
    pub amount_atom_id: *const c_char,
    pub account_atom_id: *const c_char,
}

/// What `get_extension(RBS_EXT_AMOUNT_CURRENCY)` returns: `count` entries, static data.
#[repr(C)]
pub struct RbsAmountCurrencyExtension {
    pub count: u32,
    pub amounts: *const RbsAmountCurrency,
}

/// Lets a `static` hold plain data with raw pointers (which are not `Sync`). Sound here because everything behind
/// the pointers is itself immutable static data that lives as long as the image.
#[repr(transparent)]
pub struct SyncPtr<T>(pub T);

unsafe impl<T> Sync for SyncPtr<T> {}

// Layout checks against the C header on LP64 (x86_64/aarch64 Linux): a wrong mirror fails the build, not the host.
#[cfg(target_pointer_width = "64")]
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<RbsVersion>() == 12);
    assert!(size_of::<RbsAmountCurrency>() == 24 && offset_of!(RbsAmountCurrencyExtension, amounts) == 8);
    assert!(size_of::<RbsTranslatedText>() == 40 && offset_of!(RbsTranslatedText, operation_id) == 8);
    assert!(size_of::<RbsLanguageTexts>() == 24 && offset_of!(RbsLanguageTexts, texts) == 16);
    assert!(size_of::<RbsTextsExtension>() == 16 && align_of::<RbsTextsExtension>() == 8);
    assert!(size_of::<RbsValue>() == 24 && offset_of!(RbsValue, as_) == 8);
    assert!(size_of::<RbsOption>() == 16);
    assert!(size_of::<RbsAtomDescriptor>() == 112);
    assert!(offset_of!(RbsAtomDescriptor, caption) == 32);
    assert!(offset_of!(RbsAtomDescriptor, option_count) == 96);
    assert!(offset_of!(RbsAtomDescriptor, options) == 104);
    assert!(size_of::<RbsFunctionDescriptor>() == 32);
    assert!(size_of::<RbsOperationDescriptor>() == 96);
    assert!(offset_of!(RbsOperationDescriptor, create) == 56);
    assert!(size_of::<RbsPluginDescriptor>() == 56);
    assert!(size_of::<RbsPluginEntry>() == 48 && offset_of!(RbsPluginEntry, descriptor) == 16);
    assert!(size_of::<RbsHost>() == 104 && offset_of!(RbsHost, get_service) == 40);
    assert!(size_of::<RbsDocumentBuilder>() == 16);
    assert!(size_of::<RbsCard>() == 32 && offset_of!(RbsCard, blocked) == 24);
    assert!(size_of::<RbsCardsService>() == 24 && offset_of!(RbsCardsService, at) == 16);
    assert!(align_of::<RbsValue>() == 8);
    assert!(size_of::<RbsRequirementsExtension>() == 16 && offset_of!(RbsRequirementsExtension, features) == 8);
    assert!(size_of::<RbsDocumentLabel>() == 40 && offset_of!(RbsDocumentLabel, role) == 24);
    assert!(offset_of!(RbsDocumentLabel, atom_id) == 32);
    assert!(size_of::<RbsDocumentLabelsExtension>() == 16 && offset_of!(RbsDocumentLabelsExtension, labels) == 8);
    assert!(size_of::<RbsAccount>() == 48 && offset_of!(RbsAccount, title) == 32 && offset_of!(RbsAccount, blocked) == 40);
    assert!(size_of::<RbsAccountsService>() == 32 && offset_of!(RbsAccountsService, find) == 24);
    assert!(size_of::<RbsBank>() == 32 && offset_of!(RbsBank, city) == 24);
    assert!(size_of::<RbsDirectoryService>() == 16 && offset_of!(RbsDirectoryService, lookup) == 8);
    assert!(size_of::<RbsLogService>() == 16 && offset_of!(RbsLogService, write) == 8);
    assert!(size_of::<RbsClockService>() == 24 && offset_of!(RbsClockService, today) == 16);
    assert!(size_of::<RbsTextVariant>() == 16 && offset_of!(RbsTextVariant, text) == 8);
    assert!(size_of::<RbsRunTextsService>() == 24 && offset_of!(RbsRunTextsService, set_error) == 16);
    assert!(size_of::<RbsStateExtension>() == 16 && offset_of!(RbsStateExtension, load) == 8);
    assert!(size_of::<RbsFunctionReads>() == 32 && offset_of!(RbsFunctionReads, atom_ids) == 24);
    assert!(size_of::<RbsFunctionReadsExtension>() == 16 && offset_of!(RbsFunctionReadsExtension, functions) == 8);
    assert!(size_of::<RbsRecordedAtoms>() == 24 && offset_of!(RbsRecordedAtoms, atom_ids) == 16);
    assert!(size_of::<RbsRecordedAtomsExtension>() == 16 && offset_of!(RbsRecordedAtomsExtension, operations) == 8);
};
