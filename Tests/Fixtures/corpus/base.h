/*
 * The shape every corpus plugin starts from: a valid plugin with one operation. Each corpus file #defines the one
 * thing it breaks, then includes this file. `// expect:` in a file is the text its load error must contain.
 */
#include <rbs_plugin.h>
#include <stddef.h>

#ifndef PLUGIN_ID
#define PLUGIN_ID "test.corpus.base"
#endif
#ifndef PLUGIN_VERSION
#define PLUGIN_VERSION "1.0.0"
#endif
#ifndef PLUGIN_NAME
#define PLUGIN_NAME "Corpus"
#endif
#ifndef ABI_INIT
#define ABI_INIT RBS_ABI_VERSION_INIT
#endif
#ifndef OPERATION_ID
#define OPERATION_ID "corpus.op"
#endif
#ifndef SECOND_OPERATION_ID
#define SECOND_OPERATION_ID "corpus.op2"
#endif
#ifndef ATOM_KIND
#define ATOM_KIND RBS_ATOM_INPUT
#endif
#ifndef ATOM_CAPTION
#define ATOM_CAPTION "Amount"
#endif
#ifndef ATOM_ID
#define ATOM_ID "field"
#endif
#ifndef EXTRA_ATOMS
#define EXTRA_ATOMS
#endif
#ifndef ATOM_EXTRA
#define ATOM_EXTRA
#endif
#ifndef CREATE
#define CREATE corpus_create
#endif
#ifndef DESTROY
#define DESTROY corpus_destroy
#endif
#ifndef BUILD
#define BUILD corpus_build
#endif
#ifndef ACTION
#define ACTION NULL
#endif
#ifndef ATOM_COUNT
#define ATOM_COUNT (sizeof corpus_atoms / sizeof corpus_atoms[0])
#endif
#ifndef ATOMS_POINTER
#define ATOMS_POINTER corpus_atoms
#endif
#ifndef FUNCTIONS
#define FUNCTIONS NULL
#define FUNCTION_COUNT 0
#endif
#ifndef OPERATION_COUNT
#define OPERATION_COUNT 1
#endif
#ifndef INIT
#define INIT NULL
#endif
#ifndef GET_EXTENSION
#define GET_EXTENSION NULL
#endif

static int corpus_token;
static void *corpus_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation; (void)host; (void)module;
    return &corpus_token;
}
static void corpus_destroy(void *instance) { (void)instance; }
static rbs_status_t corpus_build(void *instance, const rbs_document_builder_t *builder) {
    (void)instance; (void)builder;
    return RBS_OK;
}

static const rbs_atom_descriptor_t corpus_atoms[] = {
    { .id = ATOM_ID, .kind = ATOM_KIND, .caption = ATOM_CAPTION ATOM_EXTRA },
    EXTRA_ATOMS
};

static const rbs_operation_descriptor_t corpus_operations[] = {
    {
        .id = OPERATION_ID, .title = "Corpus operation", .category = "Tests",
        .atom_count = (uint32_t)ATOM_COUNT, .atoms = ATOMS_POINTER,
        .function_count = FUNCTION_COUNT, .functions = FUNCTIONS,
        .create = CREATE, .destroy = DESTROY, .action = ACTION, .build_document = BUILD,
    },
    {
        .id = SECOND_OPERATION_ID, .title = "Second corpus operation", .category = "Tests",
        .atom_count = (uint32_t)ATOM_COUNT, .atoms = ATOMS_POINTER,
        .create = corpus_create, .destroy = corpus_destroy, .build_document = corpus_build,
    },
};

#ifndef DESCRIPTOR_POINTER
static const rbs_plugin_descriptor_t corpus_descriptor = {
    .id = PLUGIN_ID, .name = PLUGIN_NAME, .version = PLUGIN_VERSION, .vendor = "Corpus Vendor",
    .operation_count = OPERATION_COUNT, .operations = corpus_operations,
};
#define DESCRIPTOR_POINTER &corpus_descriptor
#endif

static const rbs_plugin_entry_t corpus_entry = {
    .abi_version = ABI_INIT,
    .descriptor = DESCRIPTOR_POINTER,
    .init = INIT,
    .get_extension = GET_EXTENSION,
};

#ifndef NO_ENTRY
#ifdef ENTRY_RETURNS_NULL
RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return NULL; }
#else
RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &corpus_entry; }
#endif
#endif
