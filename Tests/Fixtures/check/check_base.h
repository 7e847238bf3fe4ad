/*
 * check_base.h — a tiny operation shared by the `plugin check` fixtures. Each fixture defines the callbacks
 * CHECK_CREATE, CHECK_DESTROY, CHECK_VALUE_CHANGED (macros naming functions) and includes this file; it may define
 * CHECK_BUILD_DOCUMENT too (by default the document is {purpose}).
 */
#include <rbs_plugin.h>

#include <stdlib.h>
#include <string.h>

static const rbs_atom_descriptor_t check_atoms[] = {
    {.id = "name", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_TEXT, .caption = "Name"},
    {.id = "amount", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_AMOUNT, .caption = "Amount", .currency = "RUB"},
    {.id = "send", .kind = RBS_ATOM_BUTTON, .flags = RBS_ATOM_FLAG_SUBMIT, .caption = "Send"},
};

#ifndef CHECK_BUILD_DOCUMENT
static rbs_status_t check_build_document(void *instance, const rbs_document_builder_t *builder) {
    (void)instance;
    builder->put(builder, "purpose", "check");
    return RBS_OK;
}
#define CHECK_BUILD_DOCUMENT check_build_document
#endif

static const rbs_operation_descriptor_t check_operations[] = {{
    .id = CHECK_OPERATION_ID,
    .title = "Check fixture",
    .category = "Tests",
    .atom_count = 3,
    .atoms = check_atoms,
    .create = CHECK_CREATE,
    .destroy = CHECK_DESTROY,
    .value_changed = CHECK_VALUE_CHANGED,
    .build_document = CHECK_BUILD_DOCUMENT,
}};

static const rbs_plugin_descriptor_t check_descriptor = {
    .id = CHECK_PLUGIN_ID,
    .name = "Check fixture",
    .version = "1.0.0",
    .vendor = "Tests",
    .operation_count = 1,
    .operations = check_operations,
};

static const rbs_plugin_entry_t check_entry = {.abi_version = RBS_ABI_VERSION_INIT, .descriptor = &check_descriptor};

RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &check_entry; }
