// A small plugin whose version and a service are set at compile time (-DVERSION="1.0.1"), for reload tests.
#include <rbs_plugin.h>
#include <stdlib.h>
#include <string.h>

#ifndef VERSION
#define VERSION "1.0.0"
#endif

static const rbs_atom_descriptor_t atoms[] = {
    { .id = "note", .kind = RBS_ATOM_INPUT, .caption = "Note " VERSION, .flags = RBS_ATOM_FLAG_OPTIONAL },
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
    return builder->put(builder, "version", VERSION) ? RBS_OK : RBS_FAILED;
}
static const rbs_operation_descriptor_t operations[] = {
    { .id = "versioned.op", .title = "Versioned " VERSION, .category = "Tests", .atom_count = 1, .atoms = atoms,
      .create = create, .destroy = destroy, .build_document = build },
};
static const rbs_plugin_descriptor_t descriptor = {
    .id = "test.versioned", .name = "Versioned", .version = VERSION, .vendor = "rbs-host tests",
    .operation_count = 1, .operations = operations,
};

/* A service for other plugins, and state kept across reloads (rbs.state/1). */
typedef struct { int (*answer)(void); } versioned_service_t;
static int answer(void) { return 42; }
static const versioned_service_t service = { answer };
static int reloads;
static bool init(const rbs_host_t *host) { return host->register_service(host, "test.versioned.answer/1", &service); }
static bool save(void *writer, rbs_state_write_fn write) {
    int next = reloads + 1;
    return write(writer, (const uint8_t *)&next, sizeof next);
}
static bool load(const uint8_t *bytes, size_t size) {
    if (size != sizeof reloads) return false;
    memcpy(&reloads, bytes, size);
    return true;
}
static const rbs_state_extension_t state = { save, load };
static const void *extension(const char *id) { return strcmp(id, RBS_EXT_STATE) == 0 ? &state : NULL; }

static const rbs_plugin_entry_t entry = { .abi_version = RBS_ABI_VERSION_INIT, .descriptor = &descriptor, .init = init,
                                          .get_extension = extension };
RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
RBS_EXPORT int versioned_reloads(void) { return reloads; }
RBS_EXPORT int versioned_live(void) { return live; }
