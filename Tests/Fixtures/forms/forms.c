/*
 * A plugin that exercises the form machinery: functions of every supported type called through libffi, an
 * instance-bound function, every host mutator, a non-submit button, and a counter of live instances.
 */
#include <rbs_plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int live_instances;
RBS_EXPORT int forms_live_instances(void) { return live_instances; }

/* What the host answered to the typed set_value / set_caption calls made when "Typed" is committed to name:
 * bit 0 INTEGER 2 → acct, bit 1 USD MONEY → amount (RUB), bit 2 RUB MONEY → amount, bit 3 INTEGER 2 → kind,
 * bit 4 TEXT account number → acct, bit 5 a 70 KB caption, bit 6 a caption with invalid UTF-8, bit 7 MONEY with
 * too many decimals. Set bit = the host said true. */
static int typed_results = -1;
RBS_EXPORT int forms_typed_results(void) { return typed_results; }

typedef struct form {
    const rbs_host_t *host;
    rbs_module_t *module;
    int commits;
    int pings;
} form_t;

RBS_EXPORT bool forms_is_long(const char *text) { return text != NULL && strlen(text) > 5; }
RBS_EXPORT int64_t forms_twice(int64_t value) { return value * 2; }
RBS_EXPORT double forms_half(double value) { return value / 2; }
RBS_EXPORT const char *forms_greeting(const char *name) {
    static char buffer[64];
    snprintf(buffer, sizeof buffer, "hi %s", name ? name : "");
    return buffer;
}
RBS_EXPORT bool forms_busy(void *instance) { return instance != NULL && ((form_t *)instance)->commits >= 3; }

static const rbs_function_descriptor_t functions[] = {
    { .name = "isLong", .symbol = "forms_is_long", .signature = "bool(string)" },
    { .name = "twice", .symbol = "forms_twice", .signature = "int64(int64)" },
    { .name = "half", .symbol = "forms_half", .signature = "double(double)" },
    { .name = "greeting", .symbol = "forms_greeting", .signature = "string(string)" },
    { .name = "busy", .symbol = "forms_busy", .signature = "bool()", .flags = RBS_FUNCTION_INSTANCE },
};

/* As pay.pp.tax: the values are not the list numbers (list 2 is value "1"). */
static const rbs_option_t payTypes[] = { { .value = "0", .title = "Обычный" }, { .value = "1", .title = "Налоговый платёж" },
                                         { .value = "2", .title = "Таможенный платёж" } };
static const rbs_option_t kinds[] = { { .value = "1", .title = "One" }, { .value = "2", .title = "Two" } };

static const rbs_atom_descriptor_t atoms[] = {
    { .id = "kind", .kind = RBS_ATOM_ENUM, .caption = "Kind", .option_count = 2, .options = kinds },
    { .id = "name", .kind = RBS_ATOM_INPUT, .caption = "Name", .flags = RBS_ATOM_FLAG_CAPITALIZE },
    { .id = "code", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_DIGITS, .caption = "Code", .max_length = 4,
      .flags = RBS_ATOM_FLAG_OPTIONAL },
    { .id = "note", .kind = RBS_ATOM_TEXT, .caption = "Note", .show_if = "$kind == 2" },
    { .id = "detail", .kind = RBS_ATOM_INPUT, .caption = "Detail", .show_if = "$kind == 2" },
    { .id = "longName", .kind = RBS_ATOM_TEXT, .caption = "A long name", .show_if = "isLong(name)" },
    { .id = "bigCode", .kind = RBS_ATOM_TEXT, .caption = "A big code", .show_if = "twice(len(code)) >= 8" },
    { .id = "greeted", .kind = RBS_ATOM_TEXT, .caption = "Greeted", .show_if = "greeting(name) == 'hi Ann'" },
    { .id = "busyNote", .kind = RBS_ATOM_TEXT, .caption = "Busy", .show_if = "busy" },
    { .id = "amount", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_AMOUNT, .currency = "RUB", .caption = "Amount",
      .flags = RBS_ATOM_FLAG_OPTIONAL, .valid_if = "amount < 1000", .error_text = "at most 999.99" },
    { .id = "agree", .kind = RBS_ATOM_TOGGLE, .caption = "Agree", .valid_if = "agree == YES", .error_text = "agree first" },
    { .id = "acct", .kind = RBS_ATOM_ACCOUNT, .caption = "Account", .flags = RBS_ATOM_FLAG_OPTIONAL },
    { .id = "acct2", .kind = RBS_ATOM_ACCOUNT, .caption = "Other account", .flags = RBS_ATOM_FLAG_OPTIONAL,
      .filter = "number != $acct" },
    { .id = "payType", .kind = RBS_ATOM_ENUM, .caption = "Pay type", .flags = RBS_ATOM_FLAG_OPTIONAL, .option_count = 3,
      .options = payTypes },
    { .id = "repeat", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_DIGITS, .caption = "Code again",
      .flags = RBS_ATOM_FLAG_OPTIONAL, .valid_if = "repeat == code", .error_text = "the codes differ" },
    { .id = "when", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_DATE, .caption = "When", .flags = RBS_ATOM_FLAG_OPTIONAL },
    { .id = "ping", .kind = RBS_ATOM_BUTTON, .caption = "Ping" },
    { .id = "send", .kind = RBS_ATOM_BUTTON, .caption = "Send", .flags = RBS_ATOM_FLAG_SUBMIT },
};

static void *create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation;
    form_t *self = calloc(1, sizeof *self);
    if (self == NULL) return NULL;
    self->host = host;
    self->module = module;
    live_instances++;
    return self;
}

static void destroy(void *instance) {
    free(instance);
    live_instances--;
}

static rbs_status_t value_changed(void *instance, const char *atom_id, const rbs_value_t *value, bool commit) {
    form_t *self = instance;
    const rbs_host_t *host = self->host;
    if (!commit) return RBS_OK;
    self->commits++;
    if (strcmp(atom_id, "name") == 0 && value->type == RBS_VALUE_TEXT) {
        const char *name = value->as.text.data;
        char caption[96];
        snprintf(caption, sizeof caption, "Hello %s", name);
        host->set_caption(host, self->module, "note", caption);
        host->set_error(host, self->module, "name", strcmp(name, "Bad") == 0 ? "no bad names" : NULL);
        host->set_error(host, self->module, NULL, strcmp(name, "Formerr") == 0 ? "the form is wrong" : NULL);
        if (strcmp(name, "Typed") == 0) {
            int results = 0;
            rbs_value_t two = { .type = RBS_VALUE_INTEGER, .as.integer = 2 };
            if (host->set_value(host, self->module, "acct", &two)) results |= 1 << 0;
            rbs_value_t dollars = { .type = RBS_VALUE_MONEY, .as.money = { .amount = "5.00", .currency = "USD" } };
            if (host->set_value(host, self->module, "amount", &dollars)) results |= 1 << 1;
            rbs_value_t roubles = { .type = RBS_VALUE_MONEY, .as.money = { .amount = "5.00", .currency = "RUB" } };
            if (host->set_value(host, self->module, "amount", &roubles)) results |= 1 << 2;
            if (host->set_value(host, self->module, "kind", &two)) results |= 1 << 3;
            rbs_value_t account = { .type = RBS_VALUE_TEXT, .as.text = { .data = "40817810399910004313", .length = 20 } };
            if (host->set_value(host, self->module, "acct", &account)) results |= 1 << 4;
            static char huge[70 * 1024 + 1];
            memset(huge, 'x', sizeof huge - 1);
            if (host->set_caption(host, self->module, "note", huge)) results |= 1 << 5;
            if (host->set_caption(host, self->module, "note", "bad \xff\xfe caption")) results |= 1 << 6;
            rbs_value_t fraction = { .type = RBS_VALUE_MONEY, .as.money = { .amount = "5.001", .currency = "RUB" } };
            if (host->set_value(host, self->module, "amount", &fraction)) results |= 1 << 7;
            typed_results = results;
        }
        if (strcmp(name, "Fill") == 0) {
            rbs_value_t code = rbs_value_text("12");
            host->set_value(host, self->module, "code", &code);
        }
        rbs_value_t read;
        if (host->get_value(host, self->module, "name", &read) && read.type == RBS_VALUE_TEXT &&
            strcmp(read.as.text.data, name) != 0) {
            host->log(host, RBS_LOG_ERROR, "get_value does not see the committed name");
        }
    }
    if (strcmp(atom_id, "amount") == 0 && value->type != RBS_VALUE_MONEY) {
        host->set_error(host, self->module, "amount", "amount did not cross as money");
    }
    return RBS_OK;
}

static rbs_status_t action(void *instance, const char *atom_id) {
    form_t *self = instance;
    if (strcmp(atom_id, "ping") != 0) return RBS_FAILED;
    self->pings++;
    char caption[32];
    snprintf(caption, sizeof caption, "Pinged %d", self->pings);
    self->host->set_caption(self->host, self->module, "ping", caption);
    return RBS_OK;
}

static rbs_status_t build(void *instance, const rbs_document_builder_t *builder) {
    form_t *self = instance;
    rbs_value_t value;
    char name[64] = "";
    if (self->host->get_value(self->host, self->module, "name", &value) && value.type == RBS_VALUE_TEXT) {
        snprintf(name, sizeof name, "%s", value.as.text.data);
    }
    if (strcmp(name, "Refuse") == 0) {
        self->host->set_error(self->host, self->module, "name", "refused by the plugin");
        return RBS_INVALID;
    }
    bool ok = builder->put(builder, "name", name);
    if (strcmp(name, "Twice") == 0) ok = builder->put(builder, "name", "again") && ok;
    char detail[64] = "";
    if (self->host->get_value(self->host, self->module, "detail", &value) && value.type == RBS_VALUE_TEXT) {
        snprintf(detail, sizeof detail, "%s", value.as.text.data);
    }
    if (detail[0] != '\0') ok = builder->put(builder, "detail", detail) && ok;
    return ok ? RBS_OK : RBS_FAILED;
}

static const rbs_operation_descriptor_t operations[] = {
    { .id = "forms.all", .title = "Every form feature", .category = "Tests",
      .atom_count = sizeof atoms / sizeof atoms[0], .atoms = atoms,
      .function_count = sizeof functions / sizeof functions[0], .functions = functions,
      .create = create, .destroy = destroy, .value_changed = value_changed, .action = action, .build_document = build },
};

static const rbs_plugin_descriptor_t descriptor = {
    .id = "test.forms", .name = "Forms fixture", .version = "1.0.0", .vendor = "rbs-host tests",
    .operation_count = 1, .operations = operations,
};

static const rbs_plugin_entry_t entry = { .abi_version = RBS_ABI_VERSION_INIT, .descriptor = &descriptor };

RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
