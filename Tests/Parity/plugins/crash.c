/*
 * parity.crash — the plugin of the parity corpus's "a plugin that crashes" scenario: typing `crash` into `trigger`
 * makes its worker die of SIGSEGV inside value_changed, as a plugin with a bad pointer would. Every front end must
 * then say the run ended and sign nothing.
 */
#include <rbs_plugin.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const rbs_atom_descriptor_t atoms[] = {
    { .id = "trigger", .kind = RBS_ATOM_INPUT, .caption = "Trigger" },
    { .id = "send", .kind = RBS_ATOM_BUTTON, .caption = "Send", .flags = RBS_ATOM_FLAG_SUBMIT },
};

static void *create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation; (void)host; (void)module;
    return calloc(1, 1);
}

static void destroy(void *instance) { free(instance); }

static rbs_status_t value_changed(void *instance, const char *atom_id, const rbs_value_t *value, bool commit) {
    (void)instance;
    if (commit && strcmp(atom_id, "trigger") == 0 && value->type == RBS_VALUE_TEXT && value->as.text.length == 5
        && memcmp(value->as.text.data, "crash", 5) == 0) {
        raise(SIGSEGV);
    }
    return RBS_OK;
}

static rbs_status_t build_document(void *instance, const rbs_document_builder_t *builder) {
    (void)instance;
    return builder->put(builder, "note", "never crashed") ? RBS_OK : RBS_FAILED;
}

static const rbs_operation_descriptor_t operations[] = { {
    .id = "parity.crash", .title = "Crash on demand", .category = "Tests",
    .atom_count = sizeof atoms / sizeof atoms[0], .atoms = atoms,
    .create = create, .destroy = destroy, .value_changed = value_changed, .build_document = build_document,
} };

static const rbs_plugin_descriptor_t descriptor = {
    .id = "tests.parity.crash", .name = "Parity crash", .version = "1.0.0", .vendor = "rbs-host tests",
    .operation_count = 1, .operations = operations,
};

static const rbs_plugin_entry_t entry = { .abi_version = RBS_ABI_VERSION_INIT, .descriptor = &descriptor };

RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
