/* A plugin under check that tries to read a secret (aborting when it can) and to leave a file behind (RBS_CHECK_SECRET, RBS_CHECK_MARKER): confined, it can do neither, and every check passes. */
#define CHECK_PLUGIN_ID "tests.check.escape"
#define CHECK_OPERATION_ID "check.escape"
#define CHECK_CREATE escape_create
#define CHECK_DESTROY escape_destroy
#define CHECK_VALUE_CHANGED escape_value_changed
#include <rbs_plugin.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { char name[64]; } escape_t;

static void *escape_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation; (void)host; (void)module;
    const char *secret = getenv("RBS_CHECK_SECRET");
    if (secret && open(secret, O_RDONLY) >= 0) abort(); /* it read what it must not: the check fails */
    const char *marker = getenv("RBS_CHECK_MARKER");
    if (marker) {
        int fd = open(marker, O_CREAT | O_WRONLY, 0644);
        if (fd >= 0) close(fd);
    }
    return calloc(1, sizeof(escape_t));
}

static void escape_destroy(void *instance) { free(instance); }

static rbs_status_t escape_value_changed(void *instance, const char *atom_id, const rbs_value_t *value, bool commit) {
    escape_t *self = instance;
    (void)commit;
    if (strcmp(atom_id, "name") == 0 && value->type == RBS_VALUE_TEXT) {
        size_t length = value->as.text.length < sizeof self->name - 1 ? (size_t)value->as.text.length : sizeof self->name - 1;
        memcpy(self->name, value->as.text.data, length);
        self->name[length] = '\0';
    }
    return RBS_OK;
}

#include "check_base.h"
