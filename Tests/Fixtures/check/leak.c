/* destroy() never frees what create() allocated (64 KB, touched): the leak check must see resident memory grow. */
#define CHECK_PLUGIN_ID "tests.check.leak"
#define CHECK_OPERATION_ID "check.leak"
#define CHECK_CREATE leak_create
#define CHECK_DESTROY leak_destroy
#define CHECK_VALUE_CHANGED NULL
#include <rbs_plugin.h>
#include <stdlib.h>
#include <string.h>

static void *leak_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation; (void)host; (void)module;
    void *state = malloc(64 * 1024);
    if (state != NULL) memset(state, 0x5a, 64 * 1024);
    return state;
}

static void leak_destroy(void *instance) { (void)instance; /* forgot free(instance) */ }

#include "check_base.h"
