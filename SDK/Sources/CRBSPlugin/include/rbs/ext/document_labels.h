/*
 * rbs/ext/document_labels.h — extension "rbs.document-labels/1" (ABI 1.1): what each field of an operation's
 * document means to a person, for the review the host shows before the document is signed.
 *
 * Without it the review shows each field under the caption of the atom whose id is the field's key, else under the
 * key itself ("inn: 7707083893"). With it, a field gets a label, a role that decides where and how it is shown, and
 * the atom it came from (an enum's value is then shown as the option's title, a date as a date).
 *
 * The host asks with entry->get_extension(RBS_EXT_DOCUMENT_LABELS) when it reads the descriptors (before init(),
 * possibly in a scanner process, possibly more than once), validates the whole table with them and caches it: no
 * side effects. Everything the table points to is static data that lives as long as the image. A host older than
 * ABI 1.1 never asks; the plugin loads and its review shows atom captions and keys.
 *
 * The review shows, in this order: the amount (grouped, with its currency), the payee, the payee's tax id, the
 * payee's account, the payee's bank (with the bank's name from the directory), the debit account, card numbers
 * (masked: first six and last four digits at most), the purpose, then every other field in the order
 * build_document put it. Every signed field is shown: there is no hidden role (what is signed is what was seen).
 *
 * Roles of the keys the core reads are fixed by the document contract (rbs/operation.h): "amount" is AMOUNT,
 * "currency" CURRENCY, "from" DEBIT_ACCOUNT, "account" PAYEE_ACCOUNT, "bic" PAYEE_BANK, "name" PAYEE, "purpose"
 * PURPOSE, whether or not the plugin lists them, and those seven roles belong to those keys only: the prominent
 * lines of a review are always what the core posts. A label for one of these keys is used where the host has no
 * caption of its own in the person's language; the host's captions (Amount/Сумма, Payee/Получатель …) win.
 */
#ifndef RBS_EXT_DOCUMENT_LABELS_H
#define RBS_EXT_DOCUMENT_LABELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RBS_EXT_DOCUMENT_LABELS "rbs.document-labels/1"

/* The role of a document field in the review. Stored in a uint32_t; a value this host does not know is refused
 * when the plugin loads, naming it (list "rbs.abi/1.N" in rbs.requirements/1 for roles a later minor adds). */
enum {
    RBS_FIELD_ROLE_OTHER = 0,          /* shown after the fields below, under its label, in document order */
    RBS_FIELD_ROLE_AMOUNT = 1,         /* key "amount" only */
    RBS_FIELD_ROLE_CURRENCY = 2,       /* key "currency" only: shown with the amount, not on a line of its own */
    RBS_FIELD_ROLE_DEBIT_ACCOUNT = 3,  /* key "from" only */
    RBS_FIELD_ROLE_PAYEE = 4,          /* key "name" only */
    RBS_FIELD_ROLE_PAYEE_ACCOUNT = 5,  /* key "account" only */
    RBS_FIELD_ROLE_PAYEE_BANK = 6,     /* key "bic" only: the host adds the bank's name from rbs.directory/1 */
    RBS_FIELD_ROLE_PURPOSE = 7,        /* key "purpose" only */
    RBS_FIELD_ROLE_PAYEE_TAX_ID = 8,   /* the payee's tax id (INN): shown right after the payee */
    RBS_FIELD_ROLE_CARD_NUMBER = 9,    /* a card number: shown prominently and masked (first six, last four) */
};

/* One field of one operation's document. */
typedef struct rbs_document_label {
    const char *operation_id; /* required: an operation of this plugin's descriptor */
    const char *key;          /* required: the document key build_document puts ([a-z][A-Za-z0-9_]*), once per
                                 operation */
    const char *label;        /* may be NULL: then the caption of `atom_id`, else the key. UTF-8, the plugin's
                                 language (its atom captions' language) */
    uint32_t role;            /* RBS_FIELD_ROLE_* */
    const char *atom_id;      /* may be NULL: the atom of that operation the value comes from. An ENUM atom's value
                                 is shown as its option's title, a TOGGLE's as yes/no, a DATE as a date */
} rbs_document_label_t;

/* What get_extension(RBS_EXT_DOCUMENT_LABELS) returns. Static data. Read by the host, never called. */
typedef struct rbs_document_labels_extension {
    uint32_t count;                     /* 0..4096 entries in `labels` */
    const rbs_document_label_t *labels; /* `count` entries; NULL only when count is 0 */
} rbs_document_labels_extension_t;

#ifdef __cplusplus
}
#endif

#endif /* RBS_EXT_DOCUMENT_LABELS_H */
