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
    const rbs_host_t *host; /* valid until destroy(): to call the host back from a callback */
    rbs_module_t *module;
    char note[4 * 140 + 1]; /* UTF-8: at most 4 bytes a character */
} my_plugin_t;

static void *my_plugin_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation;
    my_plugin_t *self = calloc(1, sizeof *self);
    if (self == NULL) return NULL; /* out of memory: the host reports it */
    self->host = host;
    self->module = module;
    return self;
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
    /* Spaces around the note are not signed: keep it trimmed, and show the person the trimmed text by setting the
     * atom's value (built with rbs/value.h's constructors; value_changed is not called again for it). */
    size_t start = 0, end = strlen(self->note);
    while (self->note[start] == ' ') start++;
    while (end > start && self->note[end - 1] == ' ') end--;
    if (start > 0 || end < strlen(self->note)) {
        memmove(self->note, self->note + start, end - start);
        self->note[end - start] = '\0';
        rbs_value_t trimmed = self->note[0] == '\0' ? rbs_value_none() : rbs_value_text(self->note);
        self->host->set_value(self->host, self->module, "note", &trimmed);
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
