/* create() never returns: `plugin check` must kill the child and report a hang in create-destroy. */
#define _POSIX_C_SOURCE 200809L
#define CHECK_PLUGIN_ID "tests.check.hang"
#define CHECK_OPERATION_ID "check.hang"
#define CHECK_CREATE hang_create
#define CHECK_DESTROY hang_destroy
#define CHECK_VALUE_CHANGED NULL
#include <rbs_plugin.h>
#include <stdlib.h>
#include <unistd.h>

static void *hang_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation; (void)host; (void)module;
    for (;;) sleep(1);
    return NULL;
}

static void hang_destroy(void *instance) { free(instance); }

#include "check_base.h"
