/* A plugin that ends the whole process with exit(0) when its "name" atom is committed: the host must not
 * report success it did not see (its atexit guard turns this into a non-zero exit and one line on stderr). */
#define CHECK_PLUGIN_ID "tests.check.exit"
#define CHECK_OPERATION_ID "check.exit"
#define CHECK_CREATE exit_create
#define CHECK_DESTROY exit_destroy
#define CHECK_VALUE_CHANGED exit_value_changed
#include <rbs_plugin.h>
#include <stdlib.h>
#include <string.h>

static void *exit_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation; (void)host; (void)module;
    return calloc(1, 1);
}

static void exit_destroy(void *instance) { free(instance); }

static rbs_status_t exit_value_changed(void *instance, const char *atom_id, const rbs_value_t *value, bool commit) {
    (void)instance; (void)value;
    if (commit && strcmp(atom_id, "name") == 0) exit(0);
    return RBS_OK;
}

#include "check_base.h"
