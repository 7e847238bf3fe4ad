/*
 * rbs/atom.h — atoms: the reusable bricks an operation's form is built from (one line of the form
 * each: a field, a choice, a label, a button).
 *
 * Every string in a descriptor is UTF-8 and NUL-terminated, and lives as long as the plugin image is loaded.
 * All descriptors are plain data: reading them has no side effects, so the host may cache them.
 */
#ifndef RBS_ATOM_H
#define RBS_ATOM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kind of an atom: how it is shown and what value it holds. */
enum {
    RBS_ATOM_TEXT = 1,    /* a label; its caption may change at run time (e.g. a bank's name after a BIC). No value. */
    RBS_ATOM_INPUT = 2,   /* a field the person types into; see input_type */
    RBS_ATOM_ENUM = 3,    /* a choice among `options` (segmented control); value: the option's `value` as TEXT */
    RBS_ATOM_TOGGLE = 4,  /* on/off; value: BOOL */
    RBS_ATOM_ACCOUNT = 5, /* one of the customer's accounts (rbs.accounts/1), filtered by `filter`; value: the account
                             number as TEXT */
    RBS_ATOM_BUTTON = 6,  /* an action; pressing it calls the operation's `action`, or submits when
                             RBS_ATOM_FLAG_SUBMIT is set. No value. */
};

/* What an input atom accepts (kind RBS_ATOM_INPUT only; 0 for other kinds). */
enum {
    RBS_INPUT_TEXT = 0,   /* any text; value TEXT */
    RBS_INPUT_DIGITS = 1, /* only the digits 0-9; value TEXT (leading zeros matter: INN, account numbers) */
    RBS_INPUT_NUMBER = 2, /* a decimal number; value DECIMAL */
    RBS_INPUT_AMOUNT = 3, /* money in `currency`, at most its minor units; value MONEY */
    RBS_INPUT_DATE = 4,   /* an ISO 8601 date "YYYY-MM-DD"; value DATE */
};

/* Flags of an atom (bitwise or). */
enum {
    RBS_ATOM_FLAG_OPTIONAL = 1u << 0,   /* an empty value does not block a submit */
    RBS_ATOM_FLAG_WIDE = 1u << 1,       /* a wide input: long text such as a name or a purpose */
    RBS_ATOM_FLAG_CAPITALIZE = 1u << 2, /* the text's first letter is capitalised as it is committed (only the first:
                                           a period in a payment's text is mostly an abbreviation's, "в т.ч.") */
    RBS_ATOM_FLAG_SECRET = 1u << 3,     /* never echoed, never logged, never written to history */
    RBS_ATOM_FLAG_SUBMIT = 1u << 4,     /* a button that submits the form (validate, build the document, sign) */
};

/* One choice of an enum atom. */
typedef struct rbs_option {
    const char *value; /* required: the value stored when chosen, unique within the atom ("1") */
    const char *title; /* required: what the person sees ("Налоговый платёж") */
} rbs_option_t;

/* An atom of an operation's form. */
typedef struct rbs_atom_descriptor {
    const char *id;      /* required: unique within the operation, [A-Za-z_][A-Za-z0-9_]*; expressions refer to it */
    uint32_t kind;       /* required: one of RBS_ATOM_* (kind) */
    uint32_t input_type; /* RBS_INPUT_* for kind INPUT; 0 otherwise */
    uint32_t flags;      /* RBS_ATOM_FLAG_* */
    uint32_t min_length; /* INPUT: fewest characters of a non-empty value (0: no minimum) */
    uint32_t max_length; /* INPUT: most characters (0: no maximum) */
    const char *caption; /* required: the label shown ("ИНН получателя") */
    const char *hint;    /* may be NULL: a short help text shown on `?` */
    const char *currency;     /* INPUT/AMOUNT: ISO 4217 code ("RUB"); NULL elsewhere */
    const char *show_if;      /* may be NULL (always shown): an expression; the atom is shown while it is true */
    const char *valid_if;     /* may be NULL: an expression that must be true for a submit to pass */
    const char *error_text;   /* the message when valid_if is false; required when valid_if is set */
    const char *filter;       /* ACCOUNT: may be NULL (all accounts): an expression over the account's fields
                                 number, currency, balance, owner, title, blocked */
    const char *default_value; /* may be NULL: the initial value, written as the person would type it */
    uint32_t option_count;        /* ENUM: number of options, at least 1; 0 for other kinds */
    const rbs_option_t *options;  /* ENUM: option_count options; NULL for other kinds */
} rbs_atom_descriptor_t;

#ifdef __cplusplus
}
#endif

#endif /* RBS_ATOM_H */
