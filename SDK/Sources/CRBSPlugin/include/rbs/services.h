/*
 * rbs/services.h — the services the host registers, looked up with host->get_service(host, ID).
 *
 * Each service is a table whose first field is a context pointer to pass back to its functions. Strings a service
 * returns are owned by the host and valid until the next call to the same service. Every lookup may fail (return
 * false or NULL): a plugin handles it.
 * Threads: every service function is [in-callback] (called from inside a host call into the plugin, on that thread)
 * unless it says [any-thread].
 */
#ifndef RBS_SERVICES_H
#define RBS_SERVICES_H

#include <stdbool.h>
#include <stdint.h>

#include "host.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- rbs.accounts/1: the customer's accounts ---- */
#define RBS_SERVICE_ACCOUNTS "rbs.accounts/1"

typedef struct rbs_account {
    const char *number;   /* 20 digits */
    const char *currency; /* ISO 4217 code */
    const char *balance;  /* decimal string, '.' separator ("125000.00") */
    const char *owner;    /* the holder's name */
    const char *title;    /* a short name ("Текущий счёт") */
    bool blocked;         /* no debits allowed */
} rbs_account_t;

typedef struct rbs_accounts_service {
    void *context;
    uint32_t (*count)(void *context);                                  /* how many accounts */
    bool (*at)(void *context, uint32_t index, rbs_account_t *out);     /* false when index >= count */
    bool (*find)(void *context, const char *number, rbs_account_t *out); /* false when unknown */
} rbs_accounts_service_t;

/* ---- rbs.cards/1: the signer's own cards, masked (what a card picker offers) ---- */
#define RBS_SERVICE_CARDS "rbs.cards/1"

typedef struct rbs_card {
    const char *id;      /* the bank's id of the card: what a document's "card" field names ("7") */
    const char *masked;  /* first six and last four digits, grouped: "4111 11** **** 1111" (never the full number) */
    const char *account; /* the account the card draws on (20 digits) */
    bool blocked;        /* blocked: only an unblock applies */
} rbs_card_t;

/* The cards of the party the form runs for. Offering is not deciding: the core blocks or unblocks a card only for a
 * document signed by the card's own customer, whatever a plugin put in it. */
typedef struct rbs_cards_service {
    void *context;
    uint32_t (*count)(void *context);                              /* how many cards */
    bool (*at)(void *context, uint32_t index, rbs_card_t *out);    /* false when index >= count */
} rbs_cards_service_t;

/* ---- rbs.directory/1: the bank directory (BIC → bank) ---- */
#define RBS_SERVICE_DIRECTORY "rbs.directory/1"

typedef struct rbs_bank {
    const char *bic;          /* 9 digits */
    const char *name;         /* the bank's name */
    const char *corr_account; /* 20 digits, or "" for the Bank of Russia's own offices */
    const char *city;
} rbs_bank_t;

typedef struct rbs_directory_service {
    void *context;
    bool (*lookup)(void *context, const char *bic, rbs_bank_t *out); /* false when the BIC is unknown */
} rbs_directory_service_t;

/* ---- rbs.log/1: structured logging (host->log is the short form) ---- */
#define RBS_SERVICE_LOG "rbs.log/1"

typedef struct rbs_log_service {
    void *context;
    /* `level`: RBS_LOG_*; `source` and `message`: NUL-terminated UTF-8. [any-thread] */
    void (*write)(void *context, uint32_t level, const char *source, const char *message);
} rbs_log_service_t;

/* ---- rbs.clock/1: the time, as the host sees it (tests freeze it) ---- */
#define RBS_SERVICE_CLOCK "rbs.clock/1"

typedef struct rbs_clock_service {
    void *context;
    int64_t (*now_unix_ms)(void *context); /* milliseconds since 1970-01-01T00:00:00Z */
    /* Writes today's date "YYYY-MM-DD" in the host's time zone and a NUL into out (at least 11 bytes). */
    void (*today)(void *context, char out[11]);
} rbs_clock_service_t;

/* ---- rbs.run-texts/1 (ABI 1.4): a caption or a mark set at run time, in every language the plugin writes ---- */
#define RBS_SERVICE_RUN_TEXTS "rbs.run-texts/1"

/* The most variants of one text (one per language). */
#define RBS_RUN_TEXT_MAX_VARIANTS 32

/* One language's version of a text a plugin sets while a form runs. */
typedef struct rbs_text_variant {
    const char *language; /* required: an ISO 639-1 code in lowercase: "ru", "en" */
    const char *text;     /* required: UTF-8, 1..RBS_TEXT_MAX_BYTES bytes (rbs/ext/texts.h), no control character */
} rbs_text_variant_t;

/*
 * host->set_caption and host->set_error with the text in each language the plugin writes. The host keeps every
 * variant and shows the one of the person's language (`--lang`, the web client's choice, the API's `lang`) — also
 * after that person switches language while the form is open — and the first variant to a reader of a language the
 * plugin does not write. A plugin that writes a message in one language only keeps calling host->set_caption /
 * set_error; one on a host older than ABI 1.4 gets NULL from get_service and falls back to them.
 *
 * Both refuse (return false, and the host logs why, naming the atom) a call that names no atom of the module, gives
 * 0 or more than RBS_RUN_TEXT_MAX_VARIANTS variants, a NULL or malformed language, a language twice, a NULL, empty,
 * over-long or non-UTF-8 text, or a control character in it; the form then keeps what it showed before.
 * set_error: `atom_id` NULL marks the whole form; clearing a mark is host->set_error with a NULL message.
 * [in-callback]
 */
typedef struct rbs_run_texts_service {
    void *context;
    bool (*set_caption)(void *context, rbs_module_t *module, const char *atom_id, uint32_t count,
                        const rbs_text_variant_t *variants);
    bool (*set_error)(void *context, rbs_module_t *module, const char *atom_id, uint32_t count,
                      const rbs_text_variant_t *variants);
} rbs_run_texts_service_t;

#ifdef __cplusplus
}
#endif

#endif /* RBS_SERVICES_H */
