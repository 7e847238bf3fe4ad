// A plugin whose entry segfaults: the scan child dies, the host records it as failed and goes on.
#include <rbs_plugin.h>
#include <stddef.h>
RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) {
    volatile int *nowhere = NULL;
    *nowhere = 42;
    return NULL;
}
