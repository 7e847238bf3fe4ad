// expect: atom id 'field' appears twice
#define EXTRA_ATOMS { .id = "field", .kind = RBS_ATOM_TEXT, .caption = "Again" },
#include "base.h"
