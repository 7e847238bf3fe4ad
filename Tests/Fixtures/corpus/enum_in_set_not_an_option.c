// expect: atom 'note' show_if "$kind IN {1, 3}": column 14: kind can never be 3: its options are '1', '2'
// IN {…} with an element that is not an option.
#include <rbs_plugin.h>
static const rbs_option_t kinds[] = { { "1", "One" }, { "2", "Two" } };
#define EXTRA_ATOMS \
    { .id = "kind", .kind = RBS_ATOM_ENUM, .caption = "Kind", .option_count = 2, .options = kinds }, \
    { .id = "note", .kind = RBS_ATOM_INPUT, .caption = "Note", .show_if = "$kind IN {1, 3}" },
#include "base.h"
