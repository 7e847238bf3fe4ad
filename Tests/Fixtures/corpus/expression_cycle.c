// expect: cycle
#define ATOM_EXTRA , .show_if = "len(other) > 0"
#define EXTRA_ATOMS { .id = "other", .kind = RBS_ATOM_INPUT, .caption = "Other", .show_if = "len(field) > 0" },
#include "base.h"
