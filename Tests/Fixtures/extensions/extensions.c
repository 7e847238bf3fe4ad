/*
 * tests.c.extensions — the C twin of Tests/Fixtures/rust-extensions and Examples/swift ExtensionsCheck: every
 * extension and host service of the ABI from one plugin, so SDKParityTests compares the three languages on one form.
 * init/deinit (keeping the host table for the services), rbs.accounts/1, rbs.directory/1, rbs.log/1, rbs.clock/1,
 * and the extensions rbs.requirements/1, rbs.document-labels/1, rbs.texts/1, rbs.state/1 (the count of runs opened
 * survives a hot reload) and rbs.function-reads/1 (bankKnown reads bic alone).
 */
#include <rbs_plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const rbs_host_t *the_host;
static uint32_t runs;

static void log_line(const char *message) {
    const rbs_log_service_t *log = the_host ? the_host->get_service(the_host, RBS_SERVICE_LOG) : NULL;
    if (log) log->write(log->context, RBS_LOG_INFO, "c-extensions", message);
}

typedef struct run {
    const rbs_host_t *host;
    rbs_module_t *module;
    char bic[16];
    char day[11];
    bool bank_known;
} run_t;

/* Whether the directory knew the BIC this run was told last (reads `bic` alone: rbs.function-reads/1). */
RBS_EXPORT bool extensions_bank_known(void *instance) { return ((run_t *)instance)->bank_known; }

static const rbs_function_descriptor_t functions[] = {
    { .name = "bankKnown", .symbol = "extensions_bank_known", .signature = "bool()", .flags = RBS_FUNCTION_INSTANCE },
};

static const rbs_atom_descriptor_t atoms[] = {
    { .id = "today", .kind = RBS_ATOM_TEXT, .caption = "Today" },
    { .id = "accounts", .kind = RBS_ATOM_TEXT, .caption = "Accounts" },
    { .id = "runs", .kind = RBS_ATOM_TEXT, .caption = "Runs" },
    { .id = "bic", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_DIGITS, .min_length = 9, .max_length = 9, .caption = "BIC" },
    { .id = "bank", .kind = RBS_ATOM_TEXT, .caption = "Bank", .show_if = "bankKnown" },
    { .id = "send", .kind = RBS_ATOM_BUTTON, .caption = "Send", .flags = RBS_ATOM_FLAG_SUBMIT },
};

static void *create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation;
    run_t *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->host = host;
    self->module = module;
    char text[256];
    const rbs_clock_service_t *clock = host->get_service(host, RBS_SERVICE_CLOCK);
    if (clock) {
        clock->today(clock->context, self->day);
        snprintf(text, sizeof text, "%s at %lld ms", self->day, (long long)clock->now_unix_ms(clock->context));
    } else {
        snprintf(text, sizeof text, "no rbs.clock/1");
    }
    host->set_caption(host, module, "today", text);
    const rbs_accounts_service_t *accounts = host->get_service(host, RBS_SERVICE_ACCOUNTS);
    rbs_account_t first, again;
    uint32_t count = accounts ? accounts->count(accounts->context) : 0;
    if (accounts && count > 0 && accounts->at(accounts->context, 0, &first)) {
        char number[32], currency[8];
        snprintf(number, sizeof number, "%s", first.number);
        snprintf(currency, sizeof currency, "%s", first.currency);
        bool found = accounts->find(accounts->context, number, &again) && strcmp(again.number, number) == 0;
        snprintf(text, sizeof text, "%u accounts, the first %s (%s)%s", count, number, currency,
                 found ? ", found again by number" : "");
    } else {
        snprintf(text, sizeof text, "%u accounts", count);
    }
    host->set_caption(host, module, "accounts", text);
    snprintf(text, sizeof text, "run %u", ++runs);
    host->set_caption(host, module, "runs", text);
    return self;
}

static void destroy(void *instance) { free(instance); }

static rbs_status_t value_changed(void *instance, const char *atom, const rbs_value_t *value, bool commit) {
    run_t *self = instance;
    if (!commit || strcmp(atom, "bic") != 0) return RBS_OK;
    if (value->type != RBS_VALUE_TEXT) return RBS_INVALID;
    size_t length = value->as.text.data ? value->as.text.length : 0;
    if (length >= sizeof self->bic) length = sizeof self->bic - 1;
    memcpy(self->bic, value->as.text.data, length);
    self->bic[length] = 0;
    const rbs_directory_service_t *directory = self->host->get_service(self->host, RBS_SERVICE_DIRECTORY);
    rbs_bank_t bank;
    self->bank_known = directory && directory->lookup(directory->context, self->bic, &bank);
    if (self->bank_known) {
        char text[512];
        snprintf(text, sizeof text, "looked up %s", self->bic);
        log_line(text);
        snprintf(text, sizeof text, "%s, %s", bank.name, bank.city);
        self->host->set_caption(self->host, self->module, "bank", text);
        self->host->set_error(self->host, self->module, "bic", NULL);
    } else {
        /* rbs.run-texts/1: the mark in English (this plugin's own language) and Russian. */
        const rbs_run_texts_service_t *texts = self->host->get_service(self->host, RBS_SERVICE_RUN_TEXTS);
        const rbs_text_variant_t variants[] = {
            { "en", "no bank with this BIC in the directory" }, { "ru", "банка с таким БИК нет в справочнике" },
        };
        if (texts == NULL || !texts->set_error(texts->context, self->module, "bic", 2, variants))
            self->host->set_error(self->host, self->module, "bic", "no bank with this BIC in the directory");
    }
    return RBS_OK;
}

static rbs_status_t build_document(void *instance, const rbs_document_builder_t *builder) {
    run_t *self = instance;
    if (!self->bic[0]) return RBS_INVALID;
    return builder->put(builder, "bic", self->bic) && builder->put(builder, "day", self->day) ? RBS_OK : RBS_FAILED;
}

static const rbs_operation_descriptor_t operations[] = { {
    .id = "c.ext", .title = "Extensions check", .category = "Tests",
    .atom_count = sizeof atoms / sizeof atoms[0], .atoms = atoms,
    .function_count = sizeof functions / sizeof functions[0], .functions = functions,
    .create = create, .destroy = destroy, .value_changed = value_changed, .build_document = build_document,
} };

static const rbs_plugin_descriptor_t descriptor = {
    .id = "tests.c.extensions", .name = "C extensions", .version = "1.0.0", .vendor = "rbs-host tests",
    .operation_count = 1, .operations = operations,
};

static const char *const features[] = { RBS_SERVICE_ACCOUNTS, RBS_SERVICE_DIRECTORY, RBS_SERVICE_LOG, RBS_SERVICE_CLOCK,
                                        RBS_SERVICE_RUN_TEXTS };
static const rbs_requirements_extension_t requirements = { .count = 5, .features = features };

static const rbs_document_label_t labels[] = {
    { .operation_id = "c.ext", .key = "bic", .role = RBS_FIELD_ROLE_OTHER, .atom_id = "bic" },
    { .operation_id = "c.ext", .key = "day", .label = "Day", .role = RBS_FIELD_ROLE_OTHER },
};
static const rbs_document_labels_extension_t document_labels = { .count = 2, .labels = labels };

static const rbs_translated_text_t russian[] = {
    { .what = RBS_TEXT_OPERATION_TITLE, .operation_id = "c.ext", .text = "Проверка расширений" },
    { .what = RBS_TEXT_ATOM_CAPTION, .operation_id = "c.ext", .target = "bic", .text = "БИК" },
    { .what = RBS_TEXT_DOCUMENT_LABEL, .operation_id = "c.ext", .target = "day", .text = "День" },
};
static const rbs_language_texts_t languages[] = { { .language = "ru", .count = 3, .texts = russian } };
static const rbs_texts_extension_t texts = { .language_count = 1, .languages = languages };

static bool save_state(void *writer, rbs_state_write_fn write) { return write(writer, (const uint8_t *)&runs, sizeof runs); }
static bool load_state(const uint8_t *bytes, size_t size) {
    if (size != sizeof runs) return false;
    memcpy(&runs, bytes, sizeof runs);
    return true;
}
static const rbs_state_extension_t state = { .save = save_state, .load = load_state };

static const char *const bank_known_reads[] = { "bic" };
static const rbs_function_reads_t reads[] = {
    { .operation_id = "c.ext", .function = "bankKnown", .atom_count = 1, .atom_ids = bank_known_reads },
};
static const rbs_function_reads_extension_t function_reads = { .count = 1, .functions = reads };

static const void *get_extension(const char *id) {
    if (strcmp(id, RBS_EXT_REQUIREMENTS) == 0) return &requirements;
    if (strcmp(id, RBS_EXT_DOCUMENT_LABELS) == 0) return &document_labels;
    if (strcmp(id, RBS_EXT_TEXTS) == 0) return &texts;
    if (strcmp(id, RBS_EXT_STATE) == 0) return &state;
    if (strcmp(id, RBS_EXT_FUNCTION_READS) == 0) return &function_reads;
    return NULL;
}

static bool init(const rbs_host_t *host) {
    the_host = host;
    log_line("init");
    return true;
}

static void deinit(void) {
    log_line("deinit");
    the_host = NULL;
}

static const rbs_plugin_entry_t entry = {
    .abi_version = RBS_ABI_VERSION_INIT, .descriptor = &descriptor, .init = init, .deinit = deinit,
    .get_extension = get_extension,
};

RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
