// expect: rbs_plugin_entry() returned NULL
#define ENTRY_RETURNS_NULL
#include "base.h"
