// expect: the plugin requires rbs.payments.sbp/2, which this host (ABI 1.6) does not offer
// A service the host does not have is named, not found missing later.
#include <rbs_plugin.h>
#include <string.h>
static const char *const needed[] = { "rbs.directory/1", "rbs.payments.sbp/2" };
static const rbs_requirements_extension_t requirements = { 2, needed };
static const void *corpus_get_extension(const char *id) {
    return strcmp(id, RBS_EXT_REQUIREMENTS) == 0 ? &requirements : NULL;
}
#define GET_EXTENSION corpus_get_extension
#include "base.h"
