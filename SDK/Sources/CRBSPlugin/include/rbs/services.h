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

#ifdef __cplusplus
}
#endif

#endif /* RBS_SERVICES_H */
