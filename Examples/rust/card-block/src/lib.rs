//! card.block — block a card, written in Rust against the rbs-host C ABI 1.1 (`rbs_plugin.h`) with no crates.
//!
//! Everything the host reads is static data built at compile time (`static` items wrapped in `SyncPtr`). Every
//! function the host calls is `extern "C"`, checks its pointers, and runs its body inside `guard`, so no panic can
//! unwind into the host (and the release profile aborts on panic anyway). The code itself avoids panicking paths:
//! no `unwrap`, no indexing that can go out of bounds.


use rbs_plugin_abi::*;
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

// ---- the form ----

const fn atom(id: &'static CStr, kind: u32, caption: &'static CStr) -> RbsAtomDescriptor {
    RbsAtomDescriptor {
        id: id.as_ptr(),
        kind,
        input_type: 0,
        flags: 0,
        min_length: 0,
        max_length: 0,
        caption: caption.as_ptr(),
        hint: ptr::null(),
        currency: ptr::null(),
        show_if: ptr::null(),
        valid_if: ptr::null(),
        error_text: ptr::null(),
        filter: ptr::null(),
        default_value: ptr::null(),
        option_count: 0,
        options: ptr::null(),
    }
}

const fn option(value: &'static CStr, title: &'static CStr) -> RbsOption {
    RbsOption {
        value: value.as_ptr(),
        title: title.as_ptr(),
    }
}

/// The reasons a card is blocked; `value` goes into the document.
static REASONS: SyncPtr<[RbsOption; 4]> = SyncPtr([
    option(c"lost", c"Утеряна"),
    option(c"stolen", c"Украдена"),
    option(c"compromised", c"Скомпрометирована"),
    option(c"other", c"Другое"),
]);

const REASON_VALUES: [&str; 4] = ["lost", "stolen", "compromised", "other"];

static ATOMS: SyncPtr<[RbsAtomDescriptor; 4]> = SyncPtr([
    RbsAtomDescriptor {
        input_type: RBS_INPUT_TEXT,
        min_length: 13,
        max_length: 23,
        hint: c"The number on the front of the card, with or without spaces (4111 1111 1111 1111). Mir, Visa and Mastercard cards can be blocked here."
            .as_ptr(),
        valid_if: c"isCard(cardNumber) AND isSupportedCard(cardNumber)".as_ptr(),
        error_text: c"Check the card number: a Mir, Visa or Mastercard number of the right length with a correct check digit"
            .as_ptr(),
        ..atom(c"cardNumber", RBS_ATOM_INPUT, c"Номер карты")
    },
    RbsAtomDescriptor {
        option_count: 4,
        options: &REASONS.0 as *const [RbsOption; 4] as *const RbsOption,
        ..atom(c"reason", RBS_ATOM_ENUM, c"Причина блокировки")
    },
    RbsAtomDescriptor {
        hint: c"A blocked card cannot be unblocked online: a new card is issued.".as_ptr(),
        valid_if: c"confirm == YES".as_ptr(),
        error_text: c"Turn the confirmation on to block the card".as_ptr(),
        ..atom(c"confirm", RBS_ATOM_TOGGLE, c"Я подтверждаю блокировку карты")
    },
    RbsAtomDescriptor { flags: RBS_ATOM_FLAG_SUBMIT, ..atom(c"btnBlock", RBS_ATOM_BUTTON, c"Заблокировать") },
]);

static FUNCTIONS: SyncPtr<[RbsFunctionDescriptor; 1]> = SyncPtr([RbsFunctionDescriptor {
    name: c"isSupportedCard".as_ptr(),
    symbol: c"card_block_is_supported".as_ptr(),
    signature: c"bool(string)".as_ptr(),
    flags: 0, // no instance pointer: a pure function of its argument
}]);

static OPERATIONS: SyncPtr<[RbsOperationDescriptor; 1]> = SyncPtr([RbsOperationDescriptor {
    id: c"card.block".as_ptr(),
    title: c"Block a card".as_ptr(),
    category: c"Cards".as_ptr(),
    atom_count: 4,
    atoms: &ATOMS.0 as *const [RbsAtomDescriptor; 4] as *const RbsAtomDescriptor,
    function_count: 1,
    functions: &FUNCTIONS.0 as *const [RbsFunctionDescriptor; 1] as *const RbsFunctionDescriptor,
    create: Some(card_block_create),
    destroy: Some(card_block_destroy),
    value_changed: Some(card_block_value_changed),
    action: None, // the only button submits
    build_document: Some(card_block_build_document),
}]);

static DESCRIPTOR: SyncPtr<RbsPluginDescriptor> = SyncPtr(RbsPluginDescriptor {
    id: c"ru.example.cards".as_ptr(),
    name: c"Cards".as_ptr(),
    version: c"1.0.0".as_ptr(),
    vendor: c"Example Bank".as_ptr(),
    description: c"Card operations: block a lost, stolen or compromised card.".as_ptr(),
    operation_count: 1,
    operations: &OPERATIONS.0 as *const [RbsOperationDescriptor; 1]
        as *const RbsOperationDescriptor,
});

/// rbs.document-labels/1 (ABI 1.1): the review shows the masked card as the card, the reason as its option's title.
static DOCUMENT_LABELS: SyncPtr<[RbsDocumentLabel; 4]> = SyncPtr([
    RbsDocumentLabel {
        operation_id: c"card.block".as_ptr(),
        key: c"cardMasked".as_ptr(),
        label: c"Номер карты".as_ptr(),
        role: RBS_FIELD_ROLE_CARD_NUMBER,
        atom_id: c"cardNumber".as_ptr(),
    },
    RbsDocumentLabel {
        operation_id: c"card.block".as_ptr(),
        key: c"cardLastFour".as_ptr(),
        label: c"Последние цифры карты".as_ptr(),
        role: RBS_FIELD_ROLE_OTHER,
        atom_id: ptr::null(),
    },
    RbsDocumentLabel {
        operation_id: c"card.block".as_ptr(),
        key: c"reason".as_ptr(),
        label: ptr::null(), // the atom's caption: "Причина блокировки"
        role: RBS_FIELD_ROLE_OTHER,
        atom_id: c"reason".as_ptr(),
    },
    RbsDocumentLabel {
        operation_id: c"card.block".as_ptr(),
        key: c"action".as_ptr(),
        label: c"Действие".as_ptr(),
        role: RBS_FIELD_ROLE_OTHER,
        atom_id: ptr::null(),
    },
]);

static DOCUMENT_LABELS_EXTENSION: SyncPtr<RbsDocumentLabelsExtension> = SyncPtr(RbsDocumentLabelsExtension {
    count: 4,
    labels: &DOCUMENT_LABELS.0 as *const [RbsDocumentLabel; 4] as *const RbsDocumentLabel,
});

/// rbs.texts/1 (ABI 1.2): the form in Russian and English. The descriptor declares the title and hints in English and
/// the captions in Russian; each language translates what is declared in the other.
const fn text(what: u32, target: Option<&'static CStr>, text: &'static CStr) -> RbsTranslatedText {
    RbsTranslatedText::new(what, c"card.block", target, None, text)
}

static RUSSIAN: SyncPtr<[RbsTranslatedText; 7]> = SyncPtr([
    text(RBS_TEXT_OPERATION_TITLE, None, c"Блокировка карты"),
    text(RBS_TEXT_OPERATION_CATEGORY, None, c"Карты"),
    text(RBS_TEXT_ATOM_HINT, Some(c"cardNumber"),
         c"Номер на лицевой стороне карты, с пробелами или без (4111 1111 1111 1111). Здесь блокируются карты Мир, Visa и Mastercard."),
    text(RBS_TEXT_ATOM_ERROR, Some(c"cardNumber"),
         c"Проверьте номер карты: номер Мир, Visa или Mastercard нужной длины с верной контрольной цифрой"),
    text(RBS_TEXT_ATOM_HINT, Some(c"confirm"), c"Заблокированную карту нельзя разблокировать онлайн: выпускается новая карта."),
    text(RBS_TEXT_ATOM_ERROR, Some(c"confirm"), c"Включите подтверждение, чтобы заблокировать карту"),
    text(RBS_TEXT_DOCUMENT_LABEL, Some(c"action"), c"Действие"),
]);

static ENGLISH: SyncPtr<[RbsTranslatedText; 12]> = SyncPtr([
    text(RBS_TEXT_ATOM_CAPTION, Some(c"cardNumber"), c"Card number"),
    text(RBS_TEXT_ATOM_CAPTION, Some(c"reason"), c"Reason for blocking"),
    text(RBS_TEXT_ATOM_CAPTION, Some(c"confirm"), c"I confirm that the card is to be blocked"),
    text(RBS_TEXT_ATOM_CAPTION, Some(c"btnBlock"), c"Block"),
    RbsTranslatedText::new(RBS_TEXT_OPTION_TITLE, c"card.block", Some(c"reason"), Some(c"lost"), c"Lost"),
    RbsTranslatedText::new(RBS_TEXT_OPTION_TITLE, c"card.block", Some(c"reason"), Some(c"stolen"), c"Stolen"),
    RbsTranslatedText::new(RBS_TEXT_OPTION_TITLE, c"card.block", Some(c"reason"), Some(c"compromised"), c"Compromised"),
    RbsTranslatedText::new(RBS_TEXT_OPTION_TITLE, c"card.block", Some(c"reason"), Some(c"other"), c"Other"),
    text(RBS_TEXT_DOCUMENT_LABEL, Some(c"cardMasked"), c"Card number"),
    text(RBS_TEXT_DOCUMENT_LABEL, Some(c"cardLastFour"), c"Last digits of the card"),
    text(RBS_TEXT_DOCUMENT_LABEL, Some(c"reason"), c"Reason for blocking"),
    text(RBS_TEXT_DOCUMENT_LABEL, Some(c"action"), c"Action"),
]);

static LANGUAGES: SyncPtr<[RbsLanguageTexts; 2]> = SyncPtr([
    RbsLanguageTexts { language: c"ru".as_ptr(), count: 7, texts: &RUSSIAN.0 as *const [RbsTranslatedText; 7] as *const RbsTranslatedText },
    RbsLanguageTexts { language: c"en".as_ptr(), count: 12, texts: &ENGLISH.0 as *const [RbsTranslatedText; 12] as *const RbsTranslatedText },
]);

static TEXTS_EXTENSION: SyncPtr<RbsTextsExtension> = SyncPtr(RbsTextsExtension {
    language_count: 2,
    languages: &LANGUAGES.0 as *const [RbsLanguageTexts; 2] as *const RbsLanguageTexts,
});

/// The extensions this plugin offers: the document's labels and the texts in Russian and English. No side effects.
unsafe extern "C" fn card_block_get_extension(id: *const c_char) -> *const c_void {
    if id.is_null() {
        return ptr::null();
    }
    // SAFETY: the host passes a NUL-terminated id that lives for the call.
    let id = unsafe { CStr::from_ptr(id) };
    if id == RBS_EXT_DOCUMENT_LABELS {
        return &DOCUMENT_LABELS_EXTENSION.0 as *const RbsDocumentLabelsExtension as *const c_void;
    }
    if id == RBS_EXT_TEXTS {
        return &TEXTS_EXTENSION.0 as *const RbsTextsExtension as *const c_void;
    }
    ptr::null()
}

static ENTRY: SyncPtr<RbsPluginEntry> = SyncPtr(RbsPluginEntry {
    abi_version: RbsVersion {
        major: RBS_ABI_MAJOR,
        minor: RBS_ABI_MINOR,
        patch: RBS_ABI_PATCH,
    },
    descriptor: &DESCRIPTOR.0,
    init: None,
    deinit: None,
    get_extension: Some(card_block_get_extension),
});

/// The one symbol the host looks up. Static data, no side effects.
#[no_mangle]
pub extern "C" fn rbs_plugin_entry() -> *const RbsPluginEntry {
    &ENTRY.0
}

// ---- panics stay on this side ----

/// Runs `body`; if it panics (only possible in a build that unwinds), returns `fallback` instead of unwinding into
/// the host, which would be undefined behaviour. With `panic = "abort"` a panic ends the process at once instead.
fn guard<R>(fallback: R, body: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

// ---- the card number ----

/// The Luhn check over ASCII digits; false for anything else or an empty string.
fn luhn(number: &str) -> bool {
    if number.is_empty() {
        return false;
    }
    let mut sum = 0u32;
    for (position, byte) in number.bytes().rev().enumerate() {
        if !byte.is_ascii_digit() {
            return false;
        }
        let mut digit = u32::from(byte - b'0');
        if !position.is_multiple_of(2) {
            digit *= 2;
            if digit > 9 {
                digit -= 9;
            }
        }
        sum += digit;
    }
    sum.is_multiple_of(10)
}

/// The digits of a card number as people write it: digits in groups separated by single spaces
/// ("4111 1111 1111 1111" or "4111111111111111"); None for anything else.
fn card_digits(text: &str) -> Option<String> {
    let text = text.trim_matches(' ');
    let mut digits = String::with_capacity(19);
    let mut last_was_space = true;
    for character in text.chars() {
        match character {
            '0'..='9' => {
                digits.push(character);
                last_was_space = false;
            }
            ' ' if !last_was_space => last_was_space = true,
            _ => return None,
        }
    }
    Some(digits)
}

/// A card of a scheme this bank can block, with that scheme's length: Mir (2200–2204, 16–19 digits), Visa (4,
/// 13, 16 or 19 digits), Mastercard (51–55 or 2221–2720, 16 digits).
fn is_supported(number: &str) -> bool {
    let prefix = |n: usize| number.get(..n).and_then(|p| p.parse::<u32>().ok()).unwrap_or(0);
    let length = number.len();
    match number.as_bytes().first() {
        Some(b'2') if (2200..=2204).contains(&prefix(4)) => (16..=19).contains(&length),
        Some(b'2') if (2221..=2720).contains(&prefix(4)) => length == 16,
        Some(b'4') => matches!(length, 13 | 16 | 19),
        Some(b'5') if (51..=55).contains(&prefix(2)) => length == 16,
        _ => false,
    }
}

/// "4111111111111111" → "4111 11** **** 1111": the BIN and the last four digits, the rest hidden, in groups of four.
fn masked(number: &str) -> String {
    let count = number.chars().count();
    let mut out = String::with_capacity(count + count / 4);
    for (index, character) in number.chars().enumerate() {
        if index > 0 && index.is_multiple_of(4) {
            out.push(' ');
        }
        out.push(if index < 6 || index + 4 >= count {
            character
        } else {
            '*'
        });
    }
    out
}

/// `isSupportedCard(cardNumber)` in expressions: signature "bool(string)", no instance pointer.
///
/// # Safety
/// `number` is NULL or a NUL-terminated string borrowed for the call (the host's promise).
#[no_mangle]
pub unsafe extern "C" fn card_block_is_supported(number: *const c_char) -> bool {
    if number.is_null() {
        return false;
    }
    guard(false, || {
        // SAFETY: non-NULL and NUL-terminated, borrowed for this call.
        let text = unsafe { CStr::from_ptr(number) }.to_string_lossy();
        card_digits(&text).is_some_and(|digits| is_supported(&digits))
    })
}

// ---- one run ----

/// The state of one run of the form: the committed values, and the host table and module to talk back through.
struct CardBlock {
    host: *const RbsHost,
    module: *mut RbsModule,
    card: String,
    reason: String,
    confirmed: bool,
}

impl CardBlock {
    /// Marks an atom (or the whole form, `atom` None) with a message.
    fn set_error(&self, atom: Option<&CStr>, message: &str) {
        // SAFETY: `host` is valid from create() until destroy() returns (rbs/operation.h).
        let Some(host) = (unsafe { self.host.as_ref() }) else {
            return;
        };
        let Some(set_error) = host.set_error else {
            return;
        };
        let Ok(message) = CString::new(message) else {
            return;
        };
        let atom = atom.map_or(ptr::null(), CStr::as_ptr);
        // SAFETY: every pointer is valid for the call; the host copies what it keeps.
        unsafe { set_error(self.host, self.module, atom, message.as_ptr()) };
    }

    /// Clears an atom's mark: a marked form cannot be submitted, so a mark this plugin set must go once it is fixed.
    fn clear_error(&self, atom: &CStr) {
        // SAFETY: as in set_error.
        let Some(host) = (unsafe { self.host.as_ref() }) else {
            return;
        };
        let Some(set_error) = host.set_error else {
            return;
        };
        // SAFETY: `atom` is NUL-terminated; a NULL message clears the mark.
        unsafe { set_error(self.host, self.module, atom.as_ptr(), ptr::null()) };
    }

    /// Whether the committed value of `atom` holds; the message for it when it does not.
    fn problem(&self, atom: &CStr) -> Option<&'static str> {
        match atom.to_bytes() {
            b"cardNumber" if !luhn(&self.card) || !is_supported(&self.card) => {
                Some("Check the card number: a Mir, Visa or Mastercard number with a correct check digit")
            }
            b"reason" if !REASON_VALUES.contains(&self.reason.as_str()) => {
                Some("Choose why the card is blocked")
            }
            b"confirm" if !self.confirmed => Some("Turn the confirmation on to block the card"),
            _ => None,
        }
    }

    /// Re-checks what the host's expressions check, so a document is never built from values that do not hold:
    /// marks each atom that fails and clears the mark of each that passes.
    fn check(&self) -> bool {
        let mut ok = true;
        for atom in CHECKED {
            match self.problem(atom) {
                Some(message) => {
                    self.set_error(Some(atom), message);
                    ok = false;
                }
                None => self.clear_error(atom),
            }
        }
        ok
    }
}

/// The atoms whose committed values `check` verifies.
const CHECKED: [&CStr; 3] = [c"cardNumber", c"reason", c"confirm"];

/// A TEXT (or DATE/DECIMAL) value as a Rust string; None for other types or malformed data.
///
/// # Safety
/// `value` follows rbs/value.h: for text types `data` points at `length` bytes.
unsafe fn text_of(value: &RbsValue) -> Option<String> {
    match value.type_ {
        RBS_VALUE_TEXT | RBS_VALUE_DATE | RBS_VALUE_DECIMAL => {
            let text = unsafe { value.as_.text };
            if text.data.is_null() {
                return None;
            }
            let length = usize::try_from(text.length).ok()?;
            // SAFETY: the header promises `length` readable bytes at `data` for the call.
            let bytes = unsafe { std::slice::from_raw_parts(text.data.cast::<u8>(), length) };
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
        _ => None,
    }
}

unsafe extern "C" fn card_block_create(
    _operation: *const RbsOperationDescriptor,
    host: *const RbsHost,
    module: *mut RbsModule,
) -> *mut c_void {
    if host.is_null() || module.is_null() {
        return ptr::null_mut();
    }
    guard(ptr::null_mut(), || {
        let instance = Box::new(CardBlock {
            host,
            module,
            card: String::new(),
            reason: String::new(),
            confirmed: false,
        });
        Box::into_raw(instance).cast::<c_void>()
    })
}

unsafe extern "C" fn card_block_destroy(instance: *mut c_void) {
    if instance.is_null() {
        return;
    }
    guard((), || {
        // SAFETY: made by Box::into_raw in create(); the host calls destroy exactly once per instance.
        drop(unsafe { Box::from_raw(instance.cast::<CardBlock>()) });
    })
}

unsafe extern "C" fn card_block_value_changed(
    instance: *mut c_void,
    atom_id: *const c_char,
    value: *const RbsValue,
    commit: bool,
) -> RbsStatus {
    if instance.is_null() || atom_id.is_null() || value.is_null() {
        return RBS_FAILED;
    }
    if !commit {
        return RBS_OK; // only committed values count
    }
    guard(RBS_FAILED, || {
        // SAFETY: the instance is ours and alive until destroy(); atom_id and value are borrowed for the call, and
        // the host calls one callback at a time.
        let this = unsafe { &mut *instance.cast::<CardBlock>() };
        let value = unsafe { &*value };
        let atom = unsafe { CStr::from_ptr(atom_id) };
        match atom.to_bytes() {
            // Only the digits are kept; the full number never leaves this instance (see build_document).
            b"cardNumber" => {
                this.card = unsafe { text_of(value) }
                    .and_then(|text| card_digits(&text))
                    .unwrap_or_default()
            }
            b"reason" => this.reason = unsafe { text_of(value) }.unwrap_or_default(),
            // SAFETY: `boolean` is the meaningful member of a BOOL value.
            b"confirm" => {
                this.confirmed = value.type_ == RBS_VALUE_BOOL && unsafe { value.as_.boolean }
            }
            _ => return RBS_OK,
        }
        // A mark build_document set goes as soon as the value is fixed (new marks come only from a submit).
        if this.problem(atom).is_none() {
            this.clear_error(atom);
        }
        RBS_OK
    })
}

unsafe extern "C" fn card_block_build_document(
    instance: *mut c_void,
    builder: *const RbsDocumentBuilder,
) -> RbsStatus {
    if instance.is_null() || builder.is_null() {
        return RBS_FAILED;
    }
    guard(RBS_FAILED, || {
        // SAFETY: as in value_changed; the builder lives for this call.
        let this = unsafe { &*instance.cast::<CardBlock>() };
        let Some(put) = (unsafe { &*builder }).put else {
            return RBS_FAILED;
        };
        if !this.check() {
            return RBS_INVALID;
        }
        // Never the full card number (PAN): the signed document, the journal and the ledger get the masked form
        // (first six and last four digits, PCI DSS 3.4) and the last four digits.
        let last_four = this.card.get(this.card.len().saturating_sub(4)..).unwrap_or_default();
        let fields: [(&CStr, String); 4] = [
            (c"cardMasked", masked(&this.card)),
            (c"cardLastFour", last_four.to_string()),
            (c"reason", this.reason.clone()),
            (c"action", String::from("block")),
        ];
        for (key, value) in fields {
            let Ok(value) = CString::new(value) else {
                return RBS_FAILED;
            };
            // SAFETY: key and value are NUL-terminated and live for the call; the host copies them.
            if !unsafe { put(builder, key.as_ptr(), value.as_ptr()) } {
                return RBS_FAILED;
            }
        }
        RBS_OK
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_and_bin() {
        assert!(luhn("4111111111111111"));
        assert!(!luhn("4111111111111112"));
        assert!(!luhn(""));
        assert!(is_supported("2200000000000004") && is_supported("5500000000000004"));
        assert!(is_supported("4222222222222") && is_supported("2221000000000009"));
        assert!(!is_supported("3530111333300000") && !is_supported(""));
        assert!(!is_supported("411111111111111") && !is_supported("55555555555544444"));
        assert!(unsafe { card_block_is_supported(c"4111111111111111".as_ptr()) });
        assert!(unsafe { card_block_is_supported(c"4111 1111 1111 1111".as_ptr()) });
        assert!(!unsafe { card_block_is_supported(c"6011111111111117".as_ptr()) });
        assert!(!unsafe { card_block_is_supported(ptr::null()) });
    }

    #[test]
    fn masking() {
        assert_eq!(masked("4111111111111111"), "4111 11** **** 1111");
    }

    #[test]
    fn spaced_card_numbers() {
        assert_eq!(card_digits("4111 1111 1111 1111").as_deref(), Some("4111111111111111"));
        assert_eq!(card_digits(" 4111111111111111 ").as_deref(), Some("4111111111111111"));
        assert_eq!(card_digits("4111  1111 1111 1111"), None);
        assert_eq!(card_digits("4111-1111-1111-1111"), None);
    }

    #[test]
    fn descriptors() {
        let entry = unsafe { &*rbs_plugin_entry() };
        assert_eq!(entry.abi_version.major, 1);
        let plugin = unsafe { &*entry.descriptor };
        let operation = unsafe { &*plugin.operations };
        let atoms =
            unsafe { std::slice::from_raw_parts(operation.atoms, operation.atom_count as usize) };
        let ids: Vec<_> = atoms
            .iter()
            .map(|a| unsafe { CStr::from_ptr(a.id) }.to_str().unwrap())
            .collect();
        assert_eq!(ids, ["cardNumber", "reason", "confirm", "btnBlock"]);
        let reason = &atoms[1];
        let options =
            unsafe { std::slice::from_raw_parts(reason.options, reason.option_count as usize) };
        assert_eq!(
            unsafe { CStr::from_ptr(options[2].value) }
                .to_str()
                .unwrap(),
            "compromised"
        );
    }
}
