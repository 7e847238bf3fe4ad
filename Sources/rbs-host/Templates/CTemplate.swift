/// The C plugin skeleton: one operation (a note and a submit button), a Makefile, and a copy of the headers.
enum CTemplate {
    static func files(_ skeleton: PluginSkeleton) -> [(path: String, contents: String)] {
        let name = skeleton.name, id = skeleton.identifier
        return [
            ("Makefile", """
                # Builds \(name).so against the copy of the rbs-host C ABI headers in include/.
                # `make` then `rbs-host plugin check \(name).so`.
                CC ?= cc
                CFLAGS ?= -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden
                RBS_INCLUDE ?= include

                \(name).so: \(id).c $(wildcard $(RBS_INCLUDE)/*.h $(RBS_INCLUDE)/rbs/*.h)
                \t$(CC) $(CFLAGS) -I$(RBS_INCLUDE) -o $@ \(id).c

                clean:
                \trm -f \(name).so

                .PHONY: clean

                """),
            ("\(id).c", """
                /*
                 * \(skeleton.operationID) — a skeleton rbs-host plugin in C. Build: make. Check: rbs-host plugin check \(name).so
                 * The headers in include/ document every field (rbs/entry.h to start).
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
                } \(id)_t;

                static void *\(id)_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
                    (void)operation;
                    (void)host;
                    (void)module;
                    return calloc(1, sizeof(\(id)_t)); /* NULL when out of memory: the host reports it */
                }

                static void \(id)_destroy(void *instance) { free(instance); }

                /* Values are borrowed for the call: copy what you keep, and never trust a length. */
                static rbs_status_t \(id)_value_changed(void *instance, const char *atom_id, const rbs_value_t *value, bool commit) {
                    \(id)_t *self = instance;
                    if (!commit || strcmp(atom_id, "note") != 0) return RBS_OK;
                    self->note[0] = '\\0';
                    if (value->type == RBS_VALUE_TEXT && value->as.text.data != NULL) {
                        size_t length = value->as.text.length < sizeof self->note - 1 ? (size_t)value->as.text.length
                                                                                     : sizeof self->note - 1;
                        memcpy(self->note, value->as.text.data, length);
                        self->note[length] = '\\0';
                    }
                    return RBS_OK;
                }

                static rbs_status_t \(id)_build_document(void *instance, const rbs_document_builder_t *builder) {
                    \(id)_t *self = instance;
                    return builder->put(builder, "purpose", self->note) ? RBS_OK : RBS_FAILED;
                }

                static const rbs_operation_descriptor_t operations[] = {{
                    .id = "\(skeleton.operationID)",
                    .title = "\(skeleton.title)",
                    .category = "Examples",
                    .atom_count = sizeof atoms / sizeof atoms[0],
                    .atoms = atoms,
                    .create = \(id)_create,
                    .destroy = \(id)_destroy,
                    .value_changed = \(id)_value_changed,
                    .build_document = \(id)_build_document,
                }};

                static const rbs_plugin_descriptor_t descriptor = {
                    .id = "\(skeleton.pluginID)",
                    .name = "\(skeleton.title)",
                    .version = "0.1.0",
                    .vendor = "Example",
                    .operation_count = sizeof operations / sizeof operations[0],
                    .operations = operations,
                };

                static const rbs_plugin_entry_t entry = {
                    .abi_version = RBS_ABI_VERSION_INIT, /* always the first field */
                    .descriptor = &descriptor,
                };

                RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }

                """),
            (".gitignore", "*.so\n"),
        ]
    }
}
