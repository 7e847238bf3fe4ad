/*
 * A plugin whose function of the run says which atom it reads (rbs.function-reads/1, ABI 1.3): `innOk` reads `inn`
 * alone, and two expressions use it (a show_if and a valid_if), as pay.pp.quick's isDestInnCorrect.
 *
 * Built with -DUNDECLARED it offers no rbs.function-reads/1 (the behaviour of a plugin before ABI 1.3); built against
 * Tests/Fixtures/abi-1.0/include it is a 1.0 plugin, which cannot offer it. -DWRONG_ATOM declares an atom the form
 * does not have; -DNOT_OF_THE_RUN declares reads for a function that takes no instance.
 *
 * -DRECORDED also offers rbs.recorded-atoms/1 (ABI 1.5): value_changed only records `inn`, `name` and `amount`, and
 * build_document puts all three, so a test sees which values reached the plugin. `innOk` reads `inn`, so only `name`
 * and `amount` may be held by the host. -DRECORDED_WRONG_ATOM lists `innNote`, which holds no value.
 */
#include <rbs_plugin.h>

#include <stdlib.h>
#include <string.h>

typedef struct run {
    char inn[32];
    char name[64];
    char amount[32];
} run_t;

/* How many times value_changed was called, in this process. */
static int changed_calls;
RBS_EXPORT int reads_changed_calls(void) { return changed_calls; }

/* Keeps a TEXT value's bytes, or a MONEY value's amount, in `into` (cut to its size). */
static void record(char *into, size_t size, const rbs_value_t *value) {
    const char *data = NULL;
    size_t length = 0;
    if (value->type == RBS_VALUE_TEXT && value->as.text.data != NULL) {
        data = value->as.text.data;
        length = value->as.text.length;
    } else if (value->type == RBS_VALUE_MONEY && value->as.money.amount != NULL) {
        data = value->as.money.amount;
        length = strlen(data);
    }
    if (length >= size) length = size - 1;
    if (length > 0) memcpy(into, data, length);
    into[length] = 0;
}

/* How many times innOk was called, in this process (a test in the host's process reads it). */
static int inn_calls;
RBS_EXPORT int reads_inn_calls(void) { return inn_calls; }

/* An empty INN or one of 10 or 12 digits, from the INN this run was told last. */
RBS_EXPORT bool reads_inn_ok(void *instance) {
    inn_calls++;
    size_t length = strlen(((run_t *)instance)->inn);
    return length == 0 || length == 10 || length == 12;
}

RBS_EXPORT int64_t reads_twice(int64_t value) { return value * 2; }

static const rbs_function_descriptor_t functions[] = {
    { .name = "innOk", .symbol = "reads_inn_ok", .signature = "bool()", .flags = RBS_FUNCTION_INSTANCE },
    { .name = "twice", .symbol = "reads_twice", .signature = "int64(int64)" },
};

static const rbs_atom_descriptor_t atoms[] = {
    { .id = "inn", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_DIGITS, .caption = "INN", .max_length = 12,
      .flags = RBS_ATOM_FLAG_OPTIONAL, .valid_if = "innOk", .error_text = "an INN has 10 or 12 digits" },
    { .id = "innNote", .kind = RBS_ATOM_TEXT, .caption = "Check the INN", .show_if = "innOk == NO" },
    { .id = "name", .kind = RBS_ATOM_INPUT, .caption = "Name", .flags = RBS_ATOM_FLAG_OPTIONAL },
    { .id = "amount", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_AMOUNT, .currency = "RUB", .caption = "Amount",
      .flags = RBS_ATOM_FLAG_OPTIONAL },
    { .id = "send", .kind = RBS_ATOM_BUTTON, .caption = "Send", .flags = RBS_ATOM_FLAG_SUBMIT },
};

static void *create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation, (void)host, (void)module;
    return calloc(1, sizeof(run_t));
}

static void destroy(void *instance) { free(instance); }

static rbs_status_t value_changed(void *instance, const char *atom, const rbs_value_t *value, bool commit) {
    (void)commit;
    run_t *self = instance;
    changed_calls++;
    if (strcmp(atom, "inn") == 0) record(self->inn, sizeof self->inn, value);
    if (strcmp(atom, "name") == 0) record(self->name, sizeof self->name, value);
    if (strcmp(atom, "amount") == 0) record(self->amount, sizeof self->amount, value);
    return RBS_OK;
}

static rbs_status_t build_document(void *instance, const rbs_document_builder_t *builder) {
    run_t *self = instance;
#if defined(RECORDED)
    if (!builder->put(builder, "who", self->name) || !builder->put(builder, "sum", self->amount)) return RBS_FAILED;
#endif
    return builder->put(builder, "inn", self->inn) ? RBS_OK : RBS_FAILED;
}

static const rbs_operation_descriptor_t operations[] = { {
    .id = "reads.op", .title = "Reads", .category = "Tests",
    .atom_count = sizeof atoms / sizeof atoms[0], .atoms = atoms,
    .function_count = sizeof functions / sizeof functions[0], .functions = functions,
    .create = create, .destroy = destroy, .value_changed = value_changed, .build_document = build_document,
} };

static const rbs_plugin_descriptor_t descriptor = {
    .id = "test.reads", .name = "Reads", .version = "1.0.0", .vendor = "Tests",
    .operation_count = 1, .operations = operations,
};

#if defined(RBS_EXT_FUNCTION_READS) && !defined(UNDECLARED)
#if defined(WRONG_ATOM)
static const char *const inn_reads[] = { "inm" };
#else
static const char *const inn_reads[] = { "inn" };
#endif
static const rbs_function_reads_t reads[] = {
#if defined(NOT_OF_THE_RUN)
    { .operation_id = "reads.op", .function = "twice", .atom_count = 1, .atom_ids = inn_reads },
#else
    { .operation_id = "reads.op", .function = "innOk", .atom_count = 1, .atom_ids = inn_reads },
#endif
};
static const rbs_function_reads_extension_t function_reads = { .count = 1, .functions = reads };
#endif

#if defined(RECORDED)
#if defined(RECORDED_WRONG_ATOM)
static const char *const recorded_ids[] = { "name", "innNote" };
#else
static const char *const recorded_ids[] = { "inn", "name", "amount" };
#endif
static const rbs_recorded_atoms_t recorded_operations[] = {
    { .operation_id = "reads.op", .atom_count = sizeof recorded_ids / sizeof recorded_ids[0], .atom_ids = recorded_ids },
};
static const rbs_recorded_atoms_extension_t recorded = { .count = 1, .operations = recorded_operations };
#endif

static const void *get_extension(const char *id) {
    (void)id;
#if defined(RBS_EXT_FUNCTION_READS) && !defined(UNDECLARED)
    if (strcmp(id, RBS_EXT_FUNCTION_READS) == 0) return &function_reads;
#endif
#if defined(RECORDED)
    if (strcmp(id, RBS_EXT_RECORDED_ATOMS) == 0) return &recorded;
#endif
    return NULL;
}

static const rbs_plugin_entry_t entry = {
    .abi_version = RBS_ABI_VERSION_INIT, .descriptor = &descriptor, .get_extension = get_extension,
};

RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
