/*
 * rbs/operation.h — an operation (a banking product: a payment order, a transfer, a card block) and its callbacks.
 *
 * Each run of an operation is a module: create() makes the plugin's state for it, destroy() frees it when the
 * person leaves the form (the run's state lives exactly as long as its form). Every callback here is
 * [plugin-thread] (see rbs_plugin.h): the host calls them one at a time; a callback must not block for long (no
 * network waits: ask a host service).
 */
#ifndef RBS_OPERATION_H
#define RBS_OPERATION_H

#include <stdbool.h>
#include <stdint.h>

#include "atom.h"
#include "host.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a callback reports. Stored in an int32_t. */
enum {
    RBS_OK = 0,      /* done */
    RBS_INVALID = 1, /* the input is not acceptable; the plugin has marked the atoms (host->set_error) */
    RBS_FAILED = 2,  /* an internal failure; the host reports it and keeps running */
};
typedef int32_t rbs_status_t;

/* Flags of an exported function. */
enum {
    /* The function's first C parameter is the instance pointer returned by create() (`void *`), before the
     * declared arguments. Such a function is only called while a module of its operation runs. */
    RBS_FUNCTION_INSTANCE = 1u << 0,
};

/* A C function the plugin exports for expressions (e.g. `isDestInnCorrect()` in a valid_if), called through libffi.
 * [plugin-thread]: called while the host evaluates an expression, one call at a time. */
typedef struct rbs_function_descriptor {
    const char *name;      /* required: the name in expressions, [A-Za-z_][A-Za-z0-9_]*, unique in the operation */
    const char *symbol;    /* required: the exported C symbol (looked up with dlsym in this plugin's image) */
    const char *signature; /* required: "RESULT(ARG, ...)" with the types int64, double, bool, string:
                              e.g. "bool()", "int64(string, int64)". A string argument is a borrowed NUL-terminated
                              UTF-8 `const char *`; a string result is owned by the plugin and must stay valid until
                              the next call into the plugin (the host copies it at once). */
    uint32_t flags;        /* RBS_FUNCTION_* */
} rbs_function_descriptor_t;

/* Collects the fields of the document a submit produces. Lives for the duration of build_document().
 *
 * The document contract — what the host signs and the bank's core posts (`rbs-host plugin check` submits each
 * operation with valid values and checks the document against it):
 * - Keys are [a-z][A-Za-z0-9_]*, each at most once; values are UTF-8 without control characters other than tab, CR and LF.
 * - Well-known keys (the review shows them first, the core reads them):
 *     "amount"   a positive decimal with '.' as the separator and at most the currency's minor digits ("1500.50");
 *     "currency" the ISO 4217 alphabetic code of the amount ("RUB");
 *     "from"     the debit account: one of the customer's accounts (rbs.accounts/1), 20 digits, in `currency`, not
 *                blocked;
 *     "account"  the payee's (credit) account, 20 digits, not the same as "from";
 *     "bic"      the payee's bank, 9 digits;  "name"  the payee;  "purpose"  the purpose of the payment.
 * - Required combinations: a document with "amount" moves money and must also have "currency", "from" and "account".
 *   A document without "amount" is acknowledged by the core without any posting (a card block, a request).
 * - Any other key is the plugin's own: it is signed and kept in the journal, and the core does not read it. */
typedef struct rbs_document_builder rbs_document_builder_t;
struct rbs_document_builder {
    void *host_data; /* reserved for the host */
    /* Adds a field. `key`: [a-z][A-Za-z0-9_]*, unique within the document; `value`: NUL-terminated UTF-8 (may be
     * empty). Both borrowed. Returns false for a malformed or repeated key.
     * Well-known keys (the host's signing and posting read them): "from" (debit account), "account" (payee or
     * credit account), "bic" (payee's bank), "name" (payee), "amount" (decimal string, '.' separator),
     * "currency" (ISO 4217), "purpose" — see the document contract above. [in-callback] */
    bool (*put)(const rbs_document_builder_t *builder, const char *key, const char *value);
};

/* An operation a plugin offers. */
typedef struct rbs_operation_descriptor {
    const char *id;       /* required: unique across all plugins, reverse-DNS style lowercase ("pay.pp.quick") */
    const char *title;    /* required: shown in lists ("Quick payment") */
    const char *category; /* required: groups operations and starts the breadcrumb ("Payments") */

    uint32_t atom_count;                /* 1..4096 */
    const rbs_atom_descriptor_t *atoms; /* atom_count atoms, in the order the form shows them */

    uint32_t function_count;                    /* 0..256 */
    const rbs_function_descriptor_t *functions; /* function_count entries; NULL when 0 */

    /* Required. Creates the state of one run. `operation` is this descriptor (so one create function can serve
     * several operations); `host` and `module` stay valid until destroy() returns: keep them to call host->set_*
     * later. Returns the plugin's instance pointer (never interpreted by the host), or NULL when it cannot (the host
     * reports the failure and opens nothing). [plugin-thread] */
    void *(*create)(const struct rbs_operation_descriptor *operation, const rbs_host_t *host, rbs_module_t *module);

    /* Required. Frees what create() made. Called exactly once per successful create(). [plugin-thread] */
    void (*destroy)(void *instance);

    /* May be NULL. A value was edited (`commit` false: while typing, if the host reports that) or committed
     * (`commit` true: the person finished the field). `value` is borrowed. [plugin-thread] */
    rbs_status_t (*value_changed)(void *instance, const char *atom_id, const rbs_value_t *value, bool commit);

    /* Required when the operation has a button without RBS_ATOM_FLAG_SUBMIT; may be NULL otherwise.
     * The button `atom_id` was pressed. [plugin-thread] */
    rbs_status_t (*action)(void *instance, const char *atom_id);

    /* Required. The form passed validation: put the document's fields. Return RBS_INVALID after marking atoms to
     * refuse the submit. Hidden atoms' values must not be put. The fields must meet the document contract above
     * (rbs_document_builder_t). [plugin-thread] */
    rbs_status_t (*build_document)(void *instance, const rbs_document_builder_t *builder);
} rbs_operation_descriptor_t;

#ifdef __cplusplus
}
#endif

#endif /* RBS_OPERATION_H */
