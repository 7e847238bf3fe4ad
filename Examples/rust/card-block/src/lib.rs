//! card.block and card.unblock — block one of the signer's cards or unblock it, written in Rust against the rbs-host
//! C ABI 1.2 (`rbs_plugin.h`) with no crates. The card is one of the signer's own (the host's rbs.cards/1 service
//! offers them, masked); the person types its number or its masked form as listed. The core decides: it blocks or
//! unblocks only a card of the document's own signer, whatever this plugin put in the document.
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
    RbsAtomDescriptor::new(id, kind, caption)
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

/// The card's number: one of the signer's cards, as its number or its masked form as listed.
const CARD_NUMBER: RbsAtomDescriptor = RbsAtomDescriptor {
    input_type: RBS_INPUT_TEXT,
    min_length: 13,
    max_length: 23,
    hint: c"One of your cards: the number on its front (4111 1111 1111 1111) or its masked number as your cards list it (4111 11** **** 1111). Mir, Visa and Mastercard cards."
        .as_ptr(),
    valid_if: c"isSupportedCard(cardNumber)".as_ptr(),
    error_text: c"Check the card number: a Mir, Visa or Mastercard number of the right length with a correct check digit"
        .as_ptr(),
    ..atom(c"cardNumber", RBS_ATOM_INPUT, c"Номер карты")
};

static ATOMS: SyncPtr<[RbsAtomDescriptor; 5]> = SyncPtr([
    // Its caption is set when the form opens: the signer's cards, masked, with their states.
    atom(c"yourCards", RBS_ATOM_TEXT, c"Ваши карты"),
    CARD_NUMBER,
    RbsAtomDescriptor {
        option_count: 4,
        options: &REASONS.0 as *const [RbsOption; 4] as *const RbsOption,
        ..atom(c"reason", RBS_ATOM_ENUM, c"Причина блокировки")
    },
    RbsAtomDescriptor {
        hint: c"A blocked card pays for nothing until you unblock it (Unblock a card).".as_ptr(),
        valid_if: c"confirm == YES".as_ptr(),
        error_text: c"Turn the confirmation on to block the card".as_ptr(),
        ..atom(c"confirm", RBS_ATOM_TOGGLE, c"Я подтверждаю блокировку карты")
    },
    RbsAtomDescriptor { flags: RBS_ATOM_FLAG_SUBMIT, ..atom(c"btnBlock", RBS_ATOM_BUTTON, c"Заблокировать") },
]);

static UNBLOCK_ATOMS: SyncPtr<[RbsAtomDescriptor; 4]> = SyncPtr([
    atom(c"yourCards", RBS_ATOM_TEXT, c"Ваши карты"),
    CARD_NUMBER,
    RbsAtomDescriptor {
        hint: c"The card pays again as soon as the bank accepts the document.".as_ptr(),
        valid_if: c"confirm == YES".as_ptr(),
        error_text: c"Turn the confirmation on to unblock the card".as_ptr(),
        ..atom(c"confirm", RBS_ATOM_TOGGLE, c"Я подтверждаю разблокировку карты")
    },
    RbsAtomDescriptor { flags: RBS_ATOM_FLAG_SUBMIT, ..atom(c"btnUnblock", RBS_ATOM_BUTTON, c"Разблокировать") },
]);

static FUNCTIONS: SyncPtr<[RbsFunctionDescriptor; 1]> = SyncPtr([RbsFunctionDescriptor {
    name: c"isSupportedCard".as_ptr(),
    symbol: c"card_block_is_supported".as_ptr(),
    signature: c"bool(string)".as_ptr(),
    flags: 0, // no instance pointer: a pure function of its argument
}]);

/// One of the plugin's operations over `atom_count` atoms at `atoms`: the same function, callbacks and instance
/// for both (the instance knows from its operation's id whether it blocks or unblocks).
const fn operation(
    id: &'static CStr,
    title: &'static CStr,
    atoms: *const RbsAtomDescriptor,
    atom_count: u32,
) -> RbsOperationDescriptor {
    RbsOperationDescriptor {
        id: id.as_ptr(),
        title: title.as_ptr(),
        category: c"Cards".as_ptr(),
        atom_count,
        atoms,
        function_count: 1,
        functions: &FUNCTIONS.0 as *const [RbsFunctionDescriptor; 1] as *const RbsFunctionDescriptor,
        create: Some(card_block_create),
        destroy: Some(card_block_destroy),
        value_changed: Some(card_block_value_changed),
        action: None, // the only button submits
        build_document: Some(card_block_build_document),
    }
}

static OPERATIONS: SyncPtr<[RbsOperationDescriptor; 2]> = SyncPtr([
    operation(c"card.block", c"Block a card", &ATOMS.0 as *const [RbsAtomDescriptor; 5] as *const RbsAtomDescriptor, 5),
    operation(
        c"card.unblock",
        c"Unblock a card",
        &UNBLOCK_ATOMS.0 as *const [RbsAtomDescriptor; 4] as *const RbsAtomDescriptor,
        4,
    ),
]);

static DESCRIPTOR: SyncPtr<RbsPluginDescriptor> = SyncPtr(RbsPluginDescriptor {
    id: c"ru.example.cards".as_ptr(),
    name: c"Cards".as_ptr(),
    version: c"1.1.0".as_ptr(),
    vendor: c"Example Bank".as_ptr(),
    description: c"Card operations: block a lost, stolen or compromised card of yours, and unblock it.".as_ptr(),
    operation_count: 2,
    operations: &OPERATIONS.0 as *const [RbsOperationDescriptor; 2]
        as *const RbsOperationDescriptor,
});

/// One document label of `operation`: the field `key`, its label (NULL: the atom's caption), role and atom.
const fn label(
    operation: &'static CStr,
    key: &'static CStr,
    label: Option<&'static CStr>,
    role: u32,
    atom: Option<&'static CStr>,
) -> RbsDocumentLabel {
    RbsDocumentLabel {
        operation_id: operation.as_ptr(),
        key: key.as_ptr(),
        label: match label {
            Some(text) => text.as_ptr(),
            None => ptr::null(),
        },
        role,
        atom_id: match atom {
            Some(id) => id.as_ptr(),
            None => ptr::null(),
        },
    }
}

/// rbs.document-labels/1 (ABI 1.1): the review shows the masked card as the card, the reason as its option's title
/// ("Причина блокировки": the atom's caption), for a block and an unblock alike.
static DOCUMENT_LABELS: SyncPtr<[RbsDocumentLabel; 7]> = SyncPtr([
    label(c"card.block", c"cardMasked", Some(c"Номер карты"), RBS_FIELD_ROLE_CARD_NUMBER, Some(c"cardNumber")),
    label(c"card.block", c"cardLastFour", Some(c"Последние цифры карты"), RBS_FIELD_ROLE_OTHER, None),
    label(c"card.block", c"reason", None, RBS_FIELD_ROLE_OTHER, Some(c"reason")),
    label(c"card.block", c"action", Some(c"Действие"), RBS_FIELD_ROLE_OTHER, None),
    label(c"card.unblock", c"cardMasked", Some(c"Номер карты"), RBS_FIELD_ROLE_CARD_NUMBER, Some(c"cardNumber")),
    label(c"card.unblock", c"cardLastFour", Some(c"Последние цифры карты"), RBS_FIELD_ROLE_OTHER, None),
    label(c"card.unblock", c"action", Some(c"Действие"), RBS_FIELD_ROLE_OTHER, None),
]);

static DOCUMENT_LABELS_EXTENSION: SyncPtr<RbsDocumentLabelsExtension> = SyncPtr(RbsDocumentLabelsExtension {
    count: 7,
    labels: &DOCUMENT_LABELS.0 as *const [RbsDocumentLabel; 7] as *const RbsDocumentLabel,
});

/// rbs.texts/1 (ABI 1.2): both forms in Russian and English. The descriptor declares the titles and hints in English
/// and the captions in Russian; each language translates what is declared in the other.
const fn text(operation: &'static CStr, what: u32, target: Option<&'static CStr>, text: &'static CStr) -> RbsTranslatedText {
    RbsTranslatedText::new(what, operation, target, None, text)
}

const BLOCK: &CStr = c"card.block";
const UNBLOCK: &CStr = c"card.unblock";
const CARD_HINT_RU: &CStr = c"Одна из ваших карт: номер на её лицевой стороне (4111 1111 1111 1111) или маскированный номер, как в списке ваших карт (4111 11** **** 1111). Карты Мир, Visa и Mastercard.";
const CARD_ERROR_RU: &CStr = c"Проверьте номер карты: номер Мир, Visa или Mastercard нужной длины с верной контрольной цифрой";

static RUSSIAN: SyncPtr<[RbsTranslatedText; 12]> = SyncPtr([
    text(BLOCK, RBS_TEXT_OPERATION_TITLE, None, c"Блокировка карты"),
    text(BLOCK, RBS_TEXT_OPERATION_CATEGORY, None, c"Карты"),
    text(BLOCK, RBS_TEXT_ATOM_HINT, Some(c"cardNumber"), CARD_HINT_RU),
    text(BLOCK, RBS_TEXT_ATOM_ERROR, Some(c"cardNumber"), CARD_ERROR_RU),
    text(BLOCK, RBS_TEXT_ATOM_HINT, Some(c"confirm"), c"Заблокированная карта ничего не оплачивает, пока вы её не разблокируете (Разблокировка карты)."),
    text(BLOCK, RBS_TEXT_ATOM_ERROR, Some(c"confirm"), c"Включите подтверждение, чтобы заблокировать карту"),
    text(UNBLOCK, RBS_TEXT_OPERATION_TITLE, None, c"Разблокировка карты"),
    text(UNBLOCK, RBS_TEXT_OPERATION_CATEGORY, None, c"Карты"),
    text(UNBLOCK, RBS_TEXT_ATOM_HINT, Some(c"cardNumber"), CARD_HINT_RU),
    text(UNBLOCK, RBS_TEXT_ATOM_ERROR, Some(c"cardNumber"), CARD_ERROR_RU),
    text(UNBLOCK, RBS_TEXT_ATOM_HINT, Some(c"confirm"), c"Карта снова платит, как только банк примет документ."),
    text(UNBLOCK, RBS_TEXT_ATOM_ERROR, Some(c"confirm"), c"Включите подтверждение, чтобы разблокировать карту"),
]);

static ENGLISH: SyncPtr<[RbsTranslatedText; 20]> = SyncPtr([
    text(BLOCK, RBS_TEXT_ATOM_CAPTION, Some(c"yourCards"), c"Your cards"),
    text(BLOCK, RBS_TEXT_ATOM_CAPTION, Some(c"cardNumber"), c"Card number"),
    text(BLOCK, RBS_TEXT_ATOM_CAPTION, Some(c"reason"), c"Reason for blocking"),
    text(BLOCK, RBS_TEXT_ATOM_CAPTION, Some(c"confirm"), c"I confirm that the card is to be blocked"),
    text(BLOCK, RBS_TEXT_ATOM_CAPTION, Some(c"btnBlock"), c"Block"),
    RbsTranslatedText::new(RBS_TEXT_OPTION_TITLE, BLOCK, Some(c"reason"), Some(c"lost"), c"Lost"),
    RbsTranslatedText::new(RBS_TEXT_OPTION_TITLE, BLOCK, Some(c"reason"), Some(c"stolen"), c"Stolen"),
    RbsTranslatedText::new(RBS_TEXT_OPTION_TITLE, BLOCK, Some(c"reason"), Some(c"compromised"), c"Compromised"),
    RbsTranslatedText::new(RBS_TEXT_OPTION_TITLE, BLOCK, Some(c"reason"), Some(c"other"), c"Other"),
    text(BLOCK, RBS_TEXT_DOCUMENT_LABEL, Some(c"cardMasked"), c"Card number"),
    text(BLOCK, RBS_TEXT_DOCUMENT_LABEL, Some(c"cardLastFour"), c"Last digits of the card"),
    text(BLOCK, RBS_TEXT_DOCUMENT_LABEL, Some(c"reason"), c"Reason for blocking"),
    text(BLOCK, RBS_TEXT_DOCUMENT_LABEL, Some(c"action"), c"Action"),
    text(UNBLOCK, RBS_TEXT_ATOM_CAPTION, Some(c"yourCards"), c"Your cards"),
    text(UNBLOCK, RBS_TEXT_ATOM_CAPTION, Some(c"cardNumber"), c"Card number"),
    text(UNBLOCK, RBS_TEXT_ATOM_CAPTION, Some(c"confirm"), c"I confirm that the card is to be unblocked"),
    text(UNBLOCK, RBS_TEXT_ATOM_CAPTION, Some(c"btnUnblock"), c"Unblock"),
    text(UNBLOCK, RBS_TEXT_DOCUMENT_LABEL, Some(c"cardMasked"), c"Card number"),
    text(UNBLOCK, RBS_TEXT_DOCUMENT_LABEL, Some(c"cardLastFour"), c"Last digits of the card"),
    text(UNBLOCK, RBS_TEXT_DOCUMENT_LABEL, Some(c"action"), c"Action"),
]);

static LANGUAGES: SyncPtr<[RbsLanguageTexts; 2]> = SyncPtr([
    RbsLanguageTexts { language: c"ru".as_ptr(), count: 12, texts: &RUSSIAN.0 as *const [RbsTranslatedText; 12] as *const RbsTranslatedText },
    RbsLanguageTexts { language: c"en".as_ptr(), count: 20, texts: &ENGLISH.0 as *const [RbsTranslatedText; 20] as *const RbsTranslatedText },
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

/// A masked number as the cards service lists it ("4111 11** **** 1111": digits, then `*`, then the last four
/// digits, in groups of four), returned without its spaces; None for anything else.
fn masked_digits(text: &str) -> Option<String> {
    let text = text.trim_matches(' ');
    let mut plain = String::with_capacity(19);
    for (index, group) in text.split(' ').enumerate() {
        if group.is_empty() || group.len() > 4 || (index > 0 && plain.len() % 4 != 0) {
            return None;
        }
        plain.push_str(group);
    }
    let count = plain.len();
    let shape = plain.chars().enumerate().all(|(index, character)| {
        if index < 6 || index + 4 >= count {
            character.is_ascii_digit()
        } else {
            character == '*'
        }
    });
    (shape && (13..=19).contains(&count)).then_some(plain)
}

/// The masked form of what the person typed: a full number that passes Luhn and the scheme check is masked here;
/// a masked number as listed is kept as it is. None for anything else.
fn masked_of(text: &str) -> Option<String> {
    if let Some(digits) = card_digits(text) {
        return (luhn(&digits) && is_supported(&digits)).then(|| masked(&digits));
    }
    let plain = masked_digits(text)?;
    let digits: String = plain.chars().map(|c| if c == '*' { '0' } else { c }).collect();
    is_supported(&digits).then(|| group(&plain))
}

/// Groups by four with single spaces.
fn group(plain: &str) -> String {
    let mut out = String::with_capacity(plain.len() + plain.len() / 4);
    for (index, character) in plain.chars().enumerate() {
        if index > 0 && index.is_multiple_of(4) {
            out.push(' ');
        }
        out.push(character);
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
        masked_of(&text).is_some()
    })
}

// ---- one run ----

/// The state of one run of the form: the committed values, and the host table and module to talk back through.
struct CardBlock {
    host: *const RbsHost,
    module: *mut RbsModule,
    /// card.unblock (else card.block): the document's action, and no reason asked.
    unblock: bool,
    /// What the person typed in cardNumber (a full number stays in this instance only; see build_document).
    card: String,
    reason: String,
    confirmed: bool,
}

/// One of the signer's cards as the host's rbs.cards/1 service lists it.
struct OwnCard {
    masked: String,
    blocked: bool,
}

/// A C string the host lent for the call, as Rust text ("" for NULL).
///
/// # Safety
/// `text` is NULL or NUL-terminated and valid for the call.
unsafe fn lent(text: *const c_char) -> String {
    if text.is_null() {
        return String::new();
    }
    unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
}

/// A message this plugin writes while a form runs, in both its languages.
struct Said {
    ru: String,
    en: String,
}

impl Said {
    fn new(ru: &str, en: &str) -> Said {
        Said { ru: String::from(ru), en: String::from(en) }
    }
}

impl CardBlock {
    /// The signer's cards, from the host's rbs.cards/1 service; None when the host offers no such service.
    fn own_cards(&self) -> Option<Vec<OwnCard>> {
        // SAFETY: `host` is valid from create() until destroy() returns (rbs/operation.h).
        let host = unsafe { self.host.as_ref() }?;
        let get_service = host.get_service?;
        // SAFETY: a NUL-terminated id; the table returned lives until the host is unloaded.
        let table = unsafe { get_service(self.host, RBS_SERVICE_CARDS.as_ptr()) }.cast::<RbsCardsService>();
        // SAFETY: non-NULL tables are the host's rbs_cards_service_t.
        let service = unsafe { table.as_ref() }?;
        let (count, at) = (service.count?, service.at?);
        // SAFETY: the service's functions take its own context; strings stay valid until its next call, so each
        // card is copied before the next `at`.
        let total = unsafe { count(service.context) };
        let mut cards = Vec::with_capacity(total as usize);
        for index in 0..total {
            let mut out = RbsCard { id: ptr::null(), masked: ptr::null(), account: ptr::null(), blocked: false };
            if !unsafe { at(service.context, index, &mut out) } {
                break;
            }
            cards.push(OwnCard { masked: unsafe { lent(out.masked) }, blocked: out.blocked });
        }
        Some(cards)
    }

    /// The signer's cards as one line for the form: "Ваши карты: 4111 11** **** 1111 (активна), …", and in English.
    fn cards_line(cards: &[OwnCard]) -> Said {
        if cards.is_empty() {
            return Said::new("Ваши карты: у вас нет карт", "Your cards: you have no cards");
        }
        let listed = |blocked: &str, active: &str| -> String {
            let each: Vec<String> =
                cards.iter().map(|card| format!("{} ({})", card.masked, if card.blocked { blocked } else { active })).collect();
            each.join(", ")
        };
        Said {
            ru: format!("Ваши карты: {}", listed("заблокирована", "активна")),
            en: format!("Your cards: {}", listed("blocked", "active")),
        }
    }

    /// Shows the signer's cards in the `yourCards` line.
    fn show_cards(&self) {
        let Some(cards) = self.own_cards() else { return };
        self.say(RunTextKind::Caption, Some(c"yourCards"), &Self::cards_line(&cards));
    }

    /// Why the typed card cannot be chosen: not one of the signer's cards, or already in the state asked for.
    /// Only early help: the core decides again on the signed document, whoever built it.
    fn ownership_problem(&self, masked: &str) -> Option<Said> {
        let cards = self.own_cards()?;
        let Some(card) = cards.iter().find(|card| card.masked == masked) else {
            let yours: Vec<&str> = cards.iter().map(|card| card.masked.as_str()).collect();
            return Some(if yours.is_empty() {
                Said {
                    ru: format!("{masked} — не ваша карта: у вас нет карт"),
                    en: format!("{masked} is not one of your cards: you have no cards"),
                }
            } else {
                Said {
                    ru: format!("{masked} — не ваша карта: ваши — {}", yours.join(", ")),
                    en: format!("{masked} is not one of your cards: yours are {}", yours.join(", ")),
                }
            });
        };
        match (self.unblock, card.blocked) {
            (false, true) => Some(Said {
                ru: format!("карта {masked} уже заблокирована"),
                en: format!("{masked} is already blocked"),
            }),
            (true, false) => Some(Said {
                ru: format!("карта {masked} не заблокирована: разблокировать нечего"),
                en: format!("{masked} is not blocked: there is nothing to unblock"),
            }),
            _ => None,
        }
    }

    /// Marks an atom (or the whole form, `atom` None) with a message.
    fn set_error(&self, atom: Option<&CStr>, message: &Said) {
        self.say(RunTextKind::Error, atom, message);
    }

    /// Sets a caption or a mark in Russian (this plugin's own language) and English: the host shows the person's
    /// (rbs.run-texts/1), or the Russian on a host older than ABI 1.4.
    fn say(&self, kind: RunTextKind, atom: Option<&CStr>, said: &Said) {
        let (Ok(ru), Ok(en)) = (CString::new(said.ru.as_str()), CString::new(said.en.as_str())) else { return };
        // SAFETY: `host` and `module` are valid from create() until destroy() returns, and this runs inside a call
        // the host made; the host copies what it keeps.
        unsafe { set_run_text(self.host, self.module, kind, atom, &[(c"ru", ru.as_c_str()), (c"en", en.as_c_str())]) };
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
    fn problem(&self, atom: &CStr) -> Option<Said> {
        match atom.to_bytes() {
            b"cardNumber" => match masked_of(&self.card) {
                None => Some(Said::new(
                    "Проверьте номер карты: номер карты «Мир», Visa или Mastercard с верной контрольной цифрой",
                    "Check the card number: a Mir, Visa or Mastercard number with a correct check digit",
                )),
                Some(masked) => self.ownership_problem(&masked),
            },
            b"reason" if !self.unblock && !REASON_VALUES.contains(&self.reason.as_str()) => {
                Some(Said::new("Выберите причину блокировки", "Choose why the card is blocked"))
            }
            b"confirm" if !self.confirmed => Some(if self.unblock {
                Said::new("Включите подтверждение, чтобы разблокировать карту", "Turn the confirmation on to unblock the card")
            } else {
                Said::new("Включите подтверждение, чтобы заблокировать карту", "Turn the confirmation on to block the card")
            }),
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
                    self.set_error(Some(atom), &message);
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
    operation: *const RbsOperationDescriptor,
    host: *const RbsHost,
    module: *mut RbsModule,
) -> *mut c_void {
    if host.is_null() || module.is_null() || operation.is_null() {
        return ptr::null_mut();
    }
    guard(ptr::null_mut(), || {
        // SAFETY: the host passes one of this plugin's own descriptors.
        let unblock = unsafe { lent((*operation).id) } == "card.unblock";
        let instance = Box::new(CardBlock {
            host,
            module,
            unblock,
            card: String::new(),
            reason: String::new(),
            confirmed: false,
        });
        instance.show_cards();
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
            // The full number never leaves this instance (see build_document).
            b"cardNumber" => this.card = unsafe { text_of(value) }.unwrap_or_default(),
            b"reason" => this.reason = unsafe { text_of(value) }.unwrap_or_default(),
            // SAFETY: `boolean` is the meaningful member of a BOOL value.
            b"confirm" => {
                this.confirmed = value.type_ == RBS_VALUE_BOOL && unsafe { value.as_.boolean }
            }
            _ => return RBS_OK,
        }
        // The card is checked against the signer's cards as soon as it is typed; other marks build_document set go
        // as soon as the value is fixed (new ones come only from a submit).
        match this.problem(atom) {
            Some(message) if atom.to_bytes() == b"cardNumber" && masked_of(&this.card).is_some() => {
                this.set_error(Some(atom), &message)
            }
            None => this.clear_error(atom),
            Some(_) => {}
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
        let Some(masked) = masked_of(&this.card) else {
            return RBS_INVALID;
        };
        let last_four = masked.get(masked.len().saturating_sub(4)..).unwrap_or_default().to_string();
        let mut fields: Vec<(&CStr, String)> = vec![(c"cardMasked", masked.clone()), (c"cardLastFour", last_four)];
        if !this.unblock {
            fields.push((c"reason", this.reason.clone()));
        }
        fields.push((c"action", String::from(if this.unblock { "unblock" } else { "block" })));
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
        assert_eq!(masked_of("4111 1111 1111 1111").as_deref(), Some("4111 11** **** 1111"));
        assert_eq!(masked_of("4111 11** **** 1111").as_deref(), Some("4111 11** **** 1111"));
        assert_eq!(masked_of("4111111111111112"), None);
        assert_eq!(masked_of("4111 11** **1* 1111"), None);
        assert_eq!(masked_of("4111 11*** *** 1111"), None);
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
        assert_eq!(ids, ["yourCards", "cardNumber", "reason", "confirm", "btnBlock"]);
        let reason = &atoms[2];
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
