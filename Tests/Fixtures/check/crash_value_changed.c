/* value_changed dereferences NULL when the name is committed: `plugin check` must report a crash in an input check. */
#define CHECK_PLUGIN_ID "tests.check.crash"
#define CHECK_OPERATION_ID "check.crash"
#define CHECK_CREATE crash_create
#define CHECK_DESTROY crash_destroy
#define CHECK_VALUE_CHANGED crash_value_changed
#include <rbs_plugin.h>
#include <stdlib.h>
#include <string.h>

static void *crash_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation; (void)host; (void)module;
    return calloc(1, 16);
}

static void crash_destroy(void *instance) { free(instance); }

static rbs_status_t crash_value_changed(void *instance, const char *atom_id, const rbs_value_t *value, bool commit) {
    (void)instance; (void)value; (void)commit;
    if (strcmp(atom_id, "name") == 0) {
        volatile int *nothing = NULL;
        *nothing = 1;
    }
    return RBS_OK;
}

#include "check_base.h"
