// expect: options are only for enum atoms
#include <rbs_plugin.h>
static const rbs_option_t corpus_options[] = { { .value = "1", .title = "One" } };
#define ATOM_EXTRA , .option_count = 1, .options = corpus_options
#include "base.h"
