/* The C target needs one translation unit; this one checks that the headers compile as C99 on their own. */
#include "rbs_plugin.h"

_Static_assert(sizeof(rbs_version_t) == 12, "rbs_version_t is frozen");
_Static_assert(sizeof(rbs_value_t) == 24, "rbs_value_t is frozen");
