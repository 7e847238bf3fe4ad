/*
 * rbs/value.h — values that cross the boundary: a tagged union.
 *
 * Money is a decimal string plus an ISO 4217 currency code, never a binary floating-point number.
 * Ownership: a value passed to a callee is borrowed for the duration of that call; copy what you keep.
 * Build values with the rbs_value_* constructors at the end of this file (the host and the SDKs use them too), so
 * the right member of `as` is set for each type.
 */
#ifndef RBS_VALUE_H
#define RBS_VALUE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an rbs_value_t holds. Stored in a uint32_t so the size never depends on the compiler. */
enum {
    RBS_VALUE_NONE = 0,    /* no value (an empty field); no member of `as` is meaningful */
    RBS_VALUE_TEXT = 1,    /* as.text: UTF-8 text */
    RBS_VALUE_INTEGER = 2, /* as.integer */
    RBS_VALUE_BOOL = 3,    /* as.boolean */
    RBS_VALUE_MONEY = 4,   /* as.money: decimal amount and currency */
    RBS_VALUE_DATE = 5,    /* as.text: an ISO 8601 calendar date, "YYYY-MM-DD" */
    RBS_VALUE_DECIMAL = 6, /* as.text: a decimal number, "-?[0-9]+(\.[0-9]+)?" */
};

/* A value. `type` says which member of `as` is meaningful. */
typedef struct rbs_value {
    uint32_t type; /* one of RBS_VALUE_* */
    union {
        /* TEXT, DATE, DECIMAL. `data` is UTF-8, `length` bytes long (not counting the NUL), and NUL-terminated:
         * data[length] == '\0'. Never NULL for these types. */
        struct {
            const char *data;
            uint64_t length;
        } text;
        int64_t integer; /* INTEGER */
        bool boolean;    /* BOOL */
        /* MONEY. `amount`: NUL-terminated decimal string with '.' as the separator and at most the currency's minor
         * digits ("1500.50", "-3", "0.07"); `currency`: NUL-terminated ISO 4217 alphabetic code ("RUB"). Never NULL. */
        struct {
            const char *amount;
            const char *currency;
        } money;
    } as;
} rbs_value_t;

/* ---- Constructors. [any-thread] Each returns a value that borrows the strings it is given: they must outlive it. ---- */

/* An empty value (RBS_VALUE_NONE): clears an atom in host->set_value. */
static inline rbs_value_t rbs_value_none(void) {
    rbs_value_t value;
    memset(&value, 0, sizeof value);
    value.type = RBS_VALUE_NONE;
    return value;
}

/* A value of a text type (RBS_VALUE_TEXT, RBS_VALUE_DATE or RBS_VALUE_DECIMAL) of `length` bytes at `data`, which
 * must be NUL-terminated at data[length]. */
static inline rbs_value_t rbs_value_of_text_type(uint32_t type, const char *data, uint64_t length) {
    rbs_value_t value = rbs_value_none();
    value.type = type;
    value.as.text.data = data;
    value.as.text.length = length;
    return value;
}

/* RBS_VALUE_TEXT from a NUL-terminated UTF-8 string. */
static inline rbs_value_t rbs_value_text(const char *text) {
    return rbs_value_of_text_type(RBS_VALUE_TEXT, text, (uint64_t)strlen(text));
}

/* RBS_VALUE_DATE from a NUL-terminated "YYYY-MM-DD". */
static inline rbs_value_t rbs_value_date(const char *iso_date) {
    return rbs_value_of_text_type(RBS_VALUE_DATE, iso_date, (uint64_t)strlen(iso_date));
}

/* RBS_VALUE_DECIMAL from a NUL-terminated "-?[0-9]+(\.[0-9]+)?". */
static inline rbs_value_t rbs_value_decimal(const char *decimal) {
    return rbs_value_of_text_type(RBS_VALUE_DECIMAL, decimal, (uint64_t)strlen(decimal));
}

/* RBS_VALUE_INTEGER. */
static inline rbs_value_t rbs_value_integer(int64_t integer) {
    rbs_value_t value = rbs_value_none();
    value.type = RBS_VALUE_INTEGER;
    value.as.integer = integer;
    return value;
}

/* RBS_VALUE_BOOL. */
static inline rbs_value_t rbs_value_bool(bool boolean) {
    rbs_value_t value = rbs_value_none();
    value.type = RBS_VALUE_BOOL;
    value.as.boolean = boolean;
    return value;
}

/* RBS_VALUE_MONEY from a NUL-terminated decimal amount ("1500.50") and ISO 4217 code ("RUB"). */
static inline rbs_value_t rbs_value_money(const char *amount, const char *currency) {
    rbs_value_t value = rbs_value_none();
    value.type = RBS_VALUE_MONEY;
    value.as.money.amount = amount;
    value.as.money.currency = currency;
    return value;
}

#ifdef __cplusplus
}
#endif

#endif /* RBS_VALUE_H */
