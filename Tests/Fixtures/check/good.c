/* A well-behaved plugin: every check passes. */
#define CHECK_PLUGIN_ID "tests.check.good"
#define CHECK_OPERATION_ID "check.good"
#define CHECK_CREATE good_create
#define CHECK_DESTROY good_destroy
#define CHECK_VALUE_CHANGED good_value_changed
#include <rbs_plugin.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char name[64]; } good_t;

static void *good_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation; (void)host; (void)module;
    return calloc(1, sizeof(good_t));
}

static void good_destroy(void *instance) { free(instance); }

static rbs_status_t good_value_changed(void *instance, const char *atom_id, const rbs_value_t *value, bool commit) {
    good_t *self = instance;
    (void)commit;
    if (strcmp(atom_id, "name") == 0 && value->type == RBS_VALUE_TEXT) {
        size_t length = value->as.text.length < sizeof self->name - 1 ? (size_t)value->as.text.length : sizeof self->name - 1;
        memcpy(self->name, value->as.text.data, length);
        self->name[length] = '\0';
    }
    return RBS_OK;
}

#include "check_base.h"
