/*
 * rbs/ext/amount_currency.h — extension "rbs.amount-currency/1" (ABI 1.6): an amount in the currency of the account
 * chosen in another field.
 *
 * An amount atom (RBS_ATOM_INPUT, RBS_INPUT_AMOUNT) declares one currency in its descriptor. A transfer between the
 * customer's own accounts debits the account the person picks, in that account's currency: with one static currency
 * the form asked for "amount, RUB" while the document debited a USD account. An entry here ties an amount atom to an
 * account atom (RBS_ATOM_ACCOUNT) of the same operation: once an account is chosen there, the host reads, checks and
 * shows the amount in that account's currency (its minor units: 2 for RUB and USD, 0 for JPY), and hands it to
 * value_changed as RBS_VALUE_MONEY in that currency. While no account is chosen, the descriptor's currency holds.
 * When the chosen account changes to one of another currency, the host clears an amount already entered (the plugin
 * gets value_changed with RBS_VALUE_NULL) and tells the person to enter it again in the new currency: the number
 * typed for one currency is never carried over into another.
 *
 * The descriptor's own currency stays required: a host older than 1.6 never asks for this extension and uses it.
 * The document's "currency" key stays the plugin's to write (the debit account's); the core posts the amount in it.
 *
 * The host asks with entry->get_extension(RBS_EXT_AMOUNT_CURRENCY) when it reads the descriptors (before init(),
 * possibly in a scanner process) and validates the whole table: each entry names an operation of this plugin, an
 * amount atom of it (at most once) and an account atom of it. A wrong entry refuses the plugin at load, naming the
 * plugin, the operation and the atom. Everything the table points to is static data that lives as long as the image.
 */
#ifndef RBS_EXT_AMOUNT_CURRENCY_H
#define RBS_EXT_AMOUNT_CURRENCY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RBS_EXT_AMOUNT_CURRENCY "rbs.amount-currency/1"

/* One amount atom that takes the currency of the account chosen in an account atom. */
typedef struct rbs_amount_currency {
    const char *operation_id;    /* required: an operation of this plugin's descriptor */
    const char *amount_atom_id;  /* required: an RBS_INPUT_AMOUNT atom of that operation, in one entry at most */
    const char *account_atom_id; /* required: an RBS_ATOM_ACCOUNT atom of that operation */
} rbs_amount_currency_t;

/* What get_extension(RBS_EXT_AMOUNT_CURRENCY) returns. Static data. Read by the host, never called. */
typedef struct rbs_amount_currency_extension {
    uint32_t count;                       /* 0..4096 entries in `amounts` */
    const rbs_amount_currency_t *amounts; /* `count` entries; NULL only when count is 0 */
} rbs_amount_currency_extension_t;

#ifdef __cplusplus
}
#endif

#endif /* RBS_EXT_AMOUNT_CURRENCY_H */
