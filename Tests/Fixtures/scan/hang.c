// A plugin whose entry never returns: the scan times out and the child is killed.
#include <rbs_plugin.h>
#include <unistd.h>
RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) {
    for (;;) pause();
    return NULL;
}
