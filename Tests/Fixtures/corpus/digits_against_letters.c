// expect: atom 'inn' valid_if "$inn != 'none'": column 9: inn can never be 'none': it holds digits only
// A digits-only input compared with letters: the comparison never changes.
#include <rbs_plugin.h>
#define EXTRA_ATOMS \
    { .id = "inn", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_DIGITS, .caption = "INN", \
      .valid_if = "$inn != 'none'", .error_text = "Enter the INN" },
#include "base.h"
