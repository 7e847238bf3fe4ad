/*
 * rbs/ext/texts.h — extension "rbs.texts/1" (ABI 1.2): a plugin's texts in more than one language.
 *
 * The descriptors hold each text once, in the plugin's own language: operation titles and categories, atom
 * captions, hints and error texts, enum option titles, document labels (rbs.document-labels/1). With this extension
 * a plugin adds, per language, translations of any of them; the host shows each text in the language of the person
 * it serves (`--lang`, the web client's choice, the API's `lang`), and falls back to the descriptor's own text for
 * a text the language does not translate (and for a language the plugin does not list). A plugin without it keeps
 * its one language everywhere.
 *
 * Only what people read is translated: ids, option values, document keys and the document itself never change with
 * the language (what is signed is the same in every language). A caption the plugin changes at run time
 * (host->set_caption) is shown as the plugin sets it.
 *
 * The host asks with entry->get_extension(RBS_EXT_TEXTS) when it reads the descriptors (before init(), possibly in a
 * scanner or worker process, possibly more than once), validates the whole table and caches it: no side effects. A
 * table that names an operation, atom, option or document key the plugin does not have, repeats a text, holds an
 * empty text, a control character or an invisible format character (a bidirectional override, a zero-width space),
 * or a text longer than RBS_TEXT_MAX_BYTES is refused when the plugin loads, naming the entry. A host older than
 * ABI 1.2 never asks.
 */
#ifndef RBS_EXT_TEXTS_H
#define RBS_EXT_TEXTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RBS_EXT_TEXTS "rbs.texts/1"

/* The most bytes of one translated text (UTF-8, without the NUL). */
#define RBS_TEXT_MAX_BYTES 1024

/* What a translation replaces. Stored in a uint32_t; a value this host does not know is refused, naming it. */
enum {
    RBS_TEXT_OPERATION_TITLE = 1,    /* the operation's title; `target` and `option` NULL */
    RBS_TEXT_OPERATION_CATEGORY = 2, /* the operation's category; `target` and `option` NULL */
    RBS_TEXT_ATOM_CAPTION = 3,       /* `target`: an atom id; its caption */
    RBS_TEXT_ATOM_HINT = 4,          /* `target`: an atom id with a hint; its hint */
    RBS_TEXT_ATOM_ERROR = 5,         /* `target`: an atom id with an error_text; its error text */
    RBS_TEXT_OPTION_TITLE = 6,       /* `target`: an enum atom id, `option`: one of its option values; its title */
    RBS_TEXT_DOCUMENT_LABEL = 7,     /* `target`: a document key; its label in the review, journal and receipts */
};

/* One translated text of one operation. */
typedef struct rbs_translated_text {
    uint32_t what;            /* RBS_TEXT_* */
    const char *operation_id; /* required: an operation of this plugin's descriptor */
    const char *target;       /* the atom id or document key `what` names; NULL for the operation's own texts */
    const char *option;       /* RBS_TEXT_OPTION_TITLE: the option's value; NULL otherwise */
    const char *text;         /* required: the translation, UTF-8, 1..RBS_TEXT_MAX_BYTES bytes */
} rbs_translated_text_t;

/* The translations into one language. */
typedef struct rbs_language_texts {
    const char *language;     /* required: an ISO 639-1 code in lowercase: "ru", "en" */
    uint32_t count;           /* 0..16384 entries in `texts` */
    const rbs_translated_text_t *texts;  /* `count` entries; NULL only when count is 0 */
} rbs_language_texts_t;

/* What get_extension(RBS_EXT_TEXTS) returns. Static data. Read by the host, never called. */
typedef struct rbs_texts_extension {
    uint32_t language_count;              /* 0..32, each language at most once */
    const rbs_language_texts_t *languages; /* `language_count` entries; NULL only when language_count is 0 */
} rbs_texts_extension_t;

#ifdef __cplusplus
}
#endif

#endif /* RBS_EXT_TEXTS_H */
