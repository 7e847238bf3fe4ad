// expect: plugin 'test.corpus.base' extension rbs.amount-currency/1 operation 'corpus.op' atom 'field': 'field' is not an amount (RBS_ATOM_INPUT with RBS_INPUT_AMOUNT)
// rbs.amount-currency/1 (ABI 1.6) gives an account's currency to an amount only: a text field has none.
#include <rbs_plugin.h>
#include <string.h>
#define EXTRA_ATOMS { .id = "from", .kind = RBS_ATOM_ACCOUNT, .caption = "From" },
static const rbs_amount_currency_t amounts[] = {
    { .operation_id = "corpus.op", .amount_atom_id = "field", .account_atom_id = "from" },
};
static const rbs_amount_currency_extension_t table = { 1, amounts };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_AMOUNT_CURRENCY) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
