/*
 * rbs/value.h — values that cross the boundary: a tagged union.
 *
 * Money is a decimal string plus an ISO 4217 currency code, never a binary floating-point number.
 * Ownership: a value passed to a callee is borrowed for the duration of that call; copy what you keep.
 */
#ifndef RBS_VALUE_H
#define RBS_VALUE_H

#include <stdbool.h>
#include <stdint.h>

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

#endif /* RBS_VALUE_H */
