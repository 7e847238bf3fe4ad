// A plugin whose constructor aborts as soon as its image is opened: whatever process opens it dies of SIGABRT.
// `rbs-host plugin sign` must survive it (the manifest is read by a sandboxed worker, not in the signing process).
#include <rbs_plugin.h>
#include <stdlib.h>
__attribute__((constructor)) static void explode(void) { abort(); }
RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return NULL; }
