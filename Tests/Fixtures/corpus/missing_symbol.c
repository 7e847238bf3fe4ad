// expect: does not export the symbol 'corpus_missing_function'
#include <rbs_plugin.h>
static const rbs_function_descriptor_t corpus_functions[] = { { .name = "check", .symbol = "corpus_missing_function", .signature = "bool()" } };
#define FUNCTIONS corpus_functions
#define FUNCTION_COUNT 1
#include "base.h"
