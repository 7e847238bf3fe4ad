/*
 * example.my-plugin — a skeleton rbs-host plugin in C. Build: make. Check: rbs-host plugin check my-plugin.so
 * The headers in include/ document every field, who owns it and on which thread it is called (rbs/entry.h to start).
 */
#include <rbs_plugin.h>

#include <stdlib.h>
#include <string.h>

static const rbs_atom_descriptor_t atoms[] = {
    {
        .id = "note",
        .kind = RBS_ATOM_INPUT,
        .input_type = RBS_INPUT_TEXT,
        .flags = RBS_ATOM_FLAG_WIDE,
        .max_length = 140,
        .caption = "Note",
        .hint = "Anything, up to 140 characters.",
    },
    {
        .id = "send",
        .kind = RBS_ATOM_BUTTON,
        .flags = RBS_ATOM_FLAG_SUBMIT,
        .caption = "Send",
    },
};

/* One run of the operation. */
typedef struct {
    char note[4 * 140 + 1]; /* UTF-8: at most 4 bytes a character */
} my_plugin_t;

static void *my_plugin_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation;
    (void)host;
    (void)module;
    return calloc(1, sizeof(my_plugin_t)); /* NULL when out of memory: the host reports it */
}

static void my_plugin_destroy(void *instance) { free(instance); }

/* Values are borrowed for the call: copy what you keep, and never trust a length. */
static rbs_status_t my_plugin_value_changed(void *instance, const char *atom_id, const rbs_value_t *value, bool commit) {
    my_plugin_t *self = instance;
    if (!commit || strcmp(atom_id, "note") != 0) return RBS_OK;
    self->note[0] = '\0';
    if (value->type == RBS_VALUE_TEXT && value->as.text.data != NULL) {
        size_t length = value->as.text.length < sizeof self->note - 1 ? (size_t)value->as.text.length
                                                                     : sizeof self->note - 1;
        memcpy(self->note, value->as.text.data, length);
        self->note[length] = '\0';
    }
    return RBS_OK;
}

/* The document: no "amount", so the core acknowledges it without moving money (the contract: rbs/operation.h). */
static rbs_status_t my_plugin_build_document(void *instance, const rbs_document_builder_t *builder) {
    my_plugin_t *self = instance;
    return builder->put(builder, "purpose", self->note) ? RBS_OK : RBS_FAILED;
}

static const rbs_operation_descriptor_t operations[] = {{
    .id = "example.my-plugin",
    .title = "My plugin",
    .category = "Examples",
    .atom_count = sizeof atoms / sizeof atoms[0],
    .atoms = atoms,
    .create = my_plugin_create,
    .destroy = my_plugin_destroy,
    .value_changed = my_plugin_value_changed,
    .build_document = my_plugin_build_document,
}};

static const rbs_plugin_descriptor_t descriptor = {
    .id = "com.example.my-plugin",
    .name = "My plugin",
    .version = "0.1.0",
    .vendor = "Example",
    .operation_count = sizeof operations / sizeof operations[0],
    .operations = operations,
};

static const rbs_plugin_entry_t entry = {
    .abi_version = RBS_ABI_VERSION_INIT, /* always the first field */
    .descriptor = &descriptor,
};

/* Declared in rbs/entry.h, so the compiler checks this definition. */
RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
