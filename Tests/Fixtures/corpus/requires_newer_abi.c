// expect: the plugin requires rbs.abi/1.9, which this host (ABI 1.6) does not offer
// A plugin built against 1.9 headers that cannot work without a 1.9 feature says so in rbs.requirements/1.
#include <rbs_plugin.h>
#include <string.h>
static const char *const needed[] = { "rbs.clock/1", "rbs.abi/1.9" };
static const rbs_requirements_extension_t requirements = { 2, needed };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_REQUIREMENTS) == 0 ? &requirements : NULL;
}
#define ABI_INIT { 1, 9, 0 }
#define GET_EXTENSION corpus_get_extension
#include "base.h"
