// expect: no entry symbol rbs_plugin_entry
#define NO_ENTRY
#include "base.h"
RBS_EXPORT int something_else(void) { return corpus_entry.abi_version.major; }
