// expect: signature "bool(float)"
#include <rbs_plugin.h>
RBS_EXPORT bool corpus_check(double x) { return x > 0; }
static const rbs_function_descriptor_t corpus_functions[] = { { .name = "check", .symbol = "corpus_check", .signature = "bool(float)" } };
#define FUNCTIONS corpus_functions
#define FUNCTION_COUNT 1
#include "base.h"
