/*
 * A plugin compiled against the frozen snapshot of the 1.0 headers (include/ beside this file). Every later version
 * of the host must keep loading it: the test builds it with -I include (never the current headers) and runs it.
 */
#include "rbs_plugin.h"

#include <string.h>

static const rbs_option_t kinds[] = { { .value = "1", .title = "One" }, { .value = "2", .title = "Two" } };

static const rbs_atom_descriptor_t atoms[] = {
    { .id = "kind", .kind = RBS_ATOM_ENUM, .caption = "Kind", .option_count = 2, .options = kinds },
    { .id = "note", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_TEXT, .caption = "Note",
      .flags = RBS_ATOM_FLAG_OPTIONAL, .show_if = "$kind == 2" },
    { .id = "send", .kind = RBS_ATOM_BUTTON, .caption = "Send", .flags = RBS_ATOM_FLAG_SUBMIT },
};

static int live;
static void *create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation; (void)host; (void)module;
    live++;
    return &live;
}
static void destroy(void *instance) { (void)instance; live--; }
static rbs_status_t build(void *instance, const rbs_document_builder_t *builder) {
    (void)instance;
    return builder->put(builder, "note", "abi 1.0") ? RBS_OK : RBS_FAILED;
}

static const rbs_operation_descriptor_t operations[] = {
    { .id = "abi10.op", .title = "ABI 1.0 operation", .category = "Compatibility", .atom_count = 3, .atoms = atoms,
      .create = create, .destroy = destroy, .build_document = build },
};

static const rbs_plugin_descriptor_t descriptor = {
    .id = "test.abi10", .name = "ABI 1.0 fixture", .version = "1.0.0", .vendor = "rbs-host tests",
    .operation_count = 1, .operations = operations,
};

static bool started(const rbs_host_t *host) {
    /* The 1.0 host table: version and a service every host registers. */
    return host->abi_version.major == 1 && host->get_service(host, RBS_SERVICE_CLOCK) != NULL;
}

static const rbs_plugin_entry_t entry = { .abi_version = RBS_ABI_VERSION_INIT, .descriptor = &descriptor, .init = started };

RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
