// expect: plugin 'test.corpus.base' extension rbs.amount-currency/1 operation 'corpus.op' atom 'field': account_atom_id 'payee' is not an account atom (RBS_ATOM_ACCOUNT)
// The currency an amount takes comes from an account picker of the same operation; a text field is not one.
#include <rbs_plugin.h>
#include <string.h>
#define ATOM_EXTRA , .input_type = RBS_INPUT_AMOUNT, .currency = "RUB"
#define EXTRA_ATOMS { .id = "payee", .kind = RBS_ATOM_INPUT, .caption = "Payee" },
static const rbs_amount_currency_t amounts[] = {
    { .operation_id = "corpus.op", .amount_atom_id = "field", .account_atom_id = "payee" },
};
static const rbs_amount_currency_extension_t table = { 1, amounts };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_AMOUNT_CURRENCY) == 0 ? &table : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
