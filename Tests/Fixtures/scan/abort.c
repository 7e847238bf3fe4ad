// A plugin whose constructor aborts as the image is opened.
#include <rbs_plugin.h>
#include <stdlib.h>
__attribute__((constructor)) static void explode(void) { abort(); }
RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return NULL; }
