// expect: operation 'corpus.op' atom 'note' show_if "operator == 'OTHER'": column 13: operator can never be 'OTHER': its options are 'MTS', 'BEELINE'
// An enum compared with a value that is not one of its options: the atom could never be shown.
#include <rbs_plugin.h>
static const rbs_option_t operators[] = { { "MTS", "MTS" }, { "BEELINE", "Beeline" } };
#define EXTRA_ATOMS \
    { .id = "operator", .kind = RBS_ATOM_ENUM, .caption = "Operator", .option_count = 2, .options = operators }, \
    { .id = "note", .kind = RBS_ATOM_INPUT, .caption = "Note", .show_if = "operator == 'OTHER'" },
#include "base.h"
