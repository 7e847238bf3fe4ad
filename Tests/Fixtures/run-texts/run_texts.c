/*
 * tests.run-texts — calls rbs.run-texts/1 (ABI 1.4) as a plugin might, well and badly: the value typed into `probe`
 * names the case, and `result` shows what the host answered ("taken" or "refused"). RunTextsTests reads the form
 * and the host's log in each language, in this process and in a worker.
 */
#include <rbs_plugin.h>

#include <stdlib.h>
#include <string.h>

typedef struct run {
    const rbs_host_t *host;
    rbs_module_t *module;
} run_t;

static const rbs_atom_descriptor_t atoms[] = {
    { .id = "probe", .kind = RBS_ATOM_INPUT, .caption = "Probe" },
    { .id = "line", .kind = RBS_ATOM_TEXT, .caption = "Line" },
    { .id = "result", .kind = RBS_ATOM_TEXT, .caption = "Result" },
    { .id = "send", .kind = RBS_ATOM_BUTTON, .caption = "Send", .flags = RBS_ATOM_FLAG_SUBMIT },
};

static void *create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation;
    run_t *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->host = host;
    self->module = module;
    return self;
}

static void destroy(void *instance) { free(instance); }

static rbs_status_t value_changed(void *instance, const char *atom_id, const rbs_value_t *value, bool commit) {
    run_t *self = instance;
    if (!commit || strcmp(atom_id, "probe") != 0 || value->type != RBS_VALUE_TEXT) return RBS_OK;
    char name[64] = { 0 };
    size_t length = value->as.text.length < sizeof name - 1 ? value->as.text.length : sizeof name - 1;
    memcpy(name, value->as.text.data, length);
    const rbs_run_texts_service_t *texts = self->host->get_service(self->host, RBS_SERVICE_RUN_TEXTS);
    if (!texts) {
        self->host->set_caption(self->host, self->module, "result", "no service");
        return RBS_OK;
    }
    static char long_text[RBS_TEXT_MAX_BYTES + 2];
    memset(long_text, 'x', sizeof long_text - 1);
    rbs_text_variant_t many[RBS_RUN_TEXT_MAX_VARIANTS + 1];
    static char codes[RBS_RUN_TEXT_MAX_VARIANTS + 1][3];
    for (int i = 0; i <= RBS_RUN_TEXT_MAX_VARIANTS; i++) {
        codes[i][0] = (char)('a' + i / 26);
        codes[i][1] = (char)('a' + i % 26);
        many[i] = (rbs_text_variant_t){ codes[i], "text" };
    }
    const rbs_text_variant_t both[] = { { "en", "Line in English" }, { "ru", "Строка по-русски" } };
    const rbs_text_variant_t mark[] = { { "en", "Fix this" }, { "ru", "Исправьте это" } };
    const rbs_text_variant_t twice[] = { { "en", "one" }, { "en", "two" } };
    const rbs_text_variant_t upper[] = { { "RU", "Строка" } };
    const rbs_text_variant_t no_text[] = { { "en", NULL } };
    const rbs_text_variant_t no_language[] = { { NULL, "text" } };
    const rbs_text_variant_t empty[] = { { "en", "" } };
    const rbs_text_variant_t control[] = { { "en", "a\x01" "b" } };
    const rbs_text_variant_t bidi[] = { { "en", "pay \xE2\x80\xAE" "evil" } };
    const rbs_text_variant_t not_utf8[] = { { "en", "\xC3\x28" } };
    const rbs_text_variant_t too_long[] = { { "en", long_text } };
    bool taken;
    if (strcmp(name, "caption") == 0) taken = texts->set_caption(texts->context, self->module, "line", 2, both);
    else if (strcmp(name, "mark") == 0) taken = texts->set_error(texts->context, self->module, "line", 2, mark);
    else if (strcmp(name, "form") == 0) taken = texts->set_error(texts->context, self->module, NULL, 2, mark);
    else if (strcmp(name, "plain") == 0) taken = self->host->set_caption(self->host, self->module, "line", "Plain line");
    else if (strcmp(name, "clear") == 0) {
        taken = self->host->set_error(self->host, self->module, NULL, NULL)
            && self->host->set_error(self->host, self->module, "line", NULL);
    }
    else if (strcmp(name, "unknown-atom") == 0) taken = texts->set_caption(texts->context, self->module, "nothing", 2, both);
    else if (strcmp(name, "no-atom") == 0) taken = texts->set_caption(texts->context, self->module, NULL, 2, both);
    else if (strcmp(name, "none") == 0) taken = texts->set_caption(texts->context, self->module, "line", 0, both);
    else if (strcmp(name, "null") == 0) taken = texts->set_caption(texts->context, self->module, "line", 2, NULL);
    else if (strcmp(name, "many") == 0) taken = texts->set_caption(texts->context, self->module, "line", RBS_RUN_TEXT_MAX_VARIANTS + 1, many);
    else if (strcmp(name, "most") == 0) taken = texts->set_caption(texts->context, self->module, "line", RBS_RUN_TEXT_MAX_VARIANTS, many);
    else if (strcmp(name, "twice") == 0) taken = texts->set_caption(texts->context, self->module, "line", 2, twice);
    else if (strcmp(name, "upper") == 0) taken = texts->set_caption(texts->context, self->module, "line", 1, upper);
    else if (strcmp(name, "no-text") == 0) taken = texts->set_caption(texts->context, self->module, "line", 1, no_text);
    else if (strcmp(name, "no-language") == 0) taken = texts->set_error(texts->context, self->module, "line", 1, no_language);
    else if (strcmp(name, "empty") == 0) taken = texts->set_caption(texts->context, self->module, "line", 1, empty);
    else if (strcmp(name, "control") == 0) taken = texts->set_error(texts->context, self->module, "line", 1, control);
    else if (strcmp(name, "bidi") == 0) taken = texts->set_caption(texts->context, self->module, "line", 1, bidi);
    else if (strcmp(name, "not-utf8") == 0) taken = texts->set_caption(texts->context, self->module, "line", 1, not_utf8);
    else if (strcmp(name, "too-long") == 0) taken = texts->set_caption(texts->context, self->module, "line", 1, too_long);
    else {
        self->host->set_caption(self->host, self->module, "result", "no such case");
        return RBS_OK;
    }
    self->host->set_caption(self->host, self->module, "result", taken ? "taken" : "refused");
    return RBS_OK;
}

static rbs_status_t build_document(void *instance, const rbs_document_builder_t *builder) {
    (void)instance;
    return builder->put(builder, "note", "run texts") ? RBS_OK : RBS_FAILED;
}

static const rbs_operation_descriptor_t operations[] = { {
    .id = "run.texts", .title = "Run texts", .category = "Tests",
    .atom_count = sizeof atoms / sizeof atoms[0], .atoms = atoms,
    .create = create, .destroy = destroy, .value_changed = value_changed, .build_document = build_document,
} };

static const rbs_plugin_descriptor_t descriptor = {
    .id = "tests.run-texts", .name = "Run texts", .version = "1.0.0", .vendor = "rbs-host tests",
    .operation_count = 1, .operations = operations,
};

static const char *const features[] = { "rbs.abi/1.4", RBS_SERVICE_RUN_TEXTS };
static const rbs_requirements_extension_t requirements = { .count = 2, .features = features };

static const void *get_extension(const char *id) {
    return strcmp(id, RBS_EXT_REQUIREMENTS) == 0 ? &requirements : NULL;
}

static const rbs_plugin_entry_t entry = {
    .abi_version = RBS_ABI_VERSION_INIT, .descriptor = &descriptor, .get_extension = get_extension,
};

RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
