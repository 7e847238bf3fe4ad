/*
 * A plugin that lists three atoms in rbs.recorded-atoms/1 (ABI 1.5) and keeps the promise for one: value_changed of
 * `name` only records it; that of `amount` also shows the fee in the caption of `fee` (host->set_caption), which the
 * host would never show, since it skips the call; that of `purpose` writes to the host's log. `plugin check` must
 * pass `recorded check.recorded/name` and fail the other two, naming the call.
 */
#include <rbs_plugin.h>

#include <stdlib.h>
#include <string.h>

typedef struct {
    const rbs_host_t *host;
    rbs_module_t *module;
    char name[64];
} recorded_t;

static const rbs_atom_descriptor_t atoms[] = {
    {.id = "name", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_TEXT, .caption = "Name", .flags = RBS_ATOM_FLAG_OPTIONAL},
    {.id = "amount", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_AMOUNT, .caption = "Amount", .currency = "RUB",
     .flags = RBS_ATOM_FLAG_OPTIONAL},
    {.id = "fee", .kind = RBS_ATOM_TEXT, .caption = "Fee"},
    {.id = "purpose", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_TEXT, .caption = "Purpose", .flags = RBS_ATOM_FLAG_OPTIONAL},
    {.id = "send", .kind = RBS_ATOM_BUTTON, .flags = RBS_ATOM_FLAG_SUBMIT, .caption = "Send"},
};

static void *create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation;
    recorded_t *self = calloc(1, sizeof(recorded_t));
    if (self != NULL) {
        self->host = host;
        self->module = module;
    }
    return self;
}

static void destroy(void *instance) { free(instance); }

static rbs_status_t value_changed(void *instance, const char *atom, const rbs_value_t *value, bool commit) {
    recorded_t *self = instance;
    (void)commit;
    if (strcmp(atom, "name") == 0 && value->type == RBS_VALUE_TEXT) {
        size_t length = value->as.text.length < sizeof self->name - 1 ? (size_t)value->as.text.length : sizeof self->name - 1;
        memcpy(self->name, value->as.text.data, length);
        self->name[length] = '\0';
    } else if (strcmp(atom, "amount") == 0) {
        self->host->set_caption(self->host, self->module, "fee", "Fee 1.00");
    } else if (strcmp(atom, "purpose") == 0) {
        self->host->log(self->host, 1, "purpose changed");
    }
    return RBS_OK;
}

static rbs_status_t build_document(void *instance, const rbs_document_builder_t *builder) {
    (void)instance;
    builder->put(builder, "purpose", "check");
    return RBS_OK;
}

static const rbs_operation_descriptor_t operations[] = {{
    .id = "check.recorded", .title = "Recorded atoms", .category = "Tests",
    .atom_count = sizeof atoms / sizeof atoms[0], .atoms = atoms,
    .create = create, .destroy = destroy, .value_changed = value_changed, .build_document = build_document,
}};

static const rbs_plugin_descriptor_t descriptor = {
    .id = "tests.check.recorded", .name = "Recorded atoms", .version = "1.0.0", .vendor = "Tests",
    .operation_count = 1, .operations = operations,
};

static const char *const recorded_ids[] = {"name", "amount", "purpose"};
static const rbs_recorded_atoms_t recorded_operations[] = {
    {.operation_id = "check.recorded", .atom_count = 3, .atom_ids = recorded_ids},
};
static const rbs_recorded_atoms_extension_t recorded = {.count = 1, .operations = recorded_operations};

static const void *get_extension(const char *id) {
    return strcmp(id, RBS_EXT_RECORDED_ATOMS) == 0 ? &recorded : NULL;
}

static const rbs_plugin_entry_t entry = {
    .abi_version = RBS_ABI_VERSION_INIT, .descriptor = &descriptor, .get_extension = get_extension,
};

RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
