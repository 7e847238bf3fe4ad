/*
 * transfer.own — a transfer between the customer's own accounts, written in plain C against rbs_plugin.h alone.
 *
 * Build: cc -std=c11 -shared -fPIC -I../../../SDK/Sources/CRBSPlugin/include -o transfer-own.so transfer_own.c
 */
#include <rbs_plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the form ---- */

static const rbs_atom_descriptor_t atoms[] = {
    {
        .id = "fromAccount",
        .kind = RBS_ATOM_ACCOUNT,
        .caption = "Списать со счёта",
        .hint = "The account the money leaves. Blocked accounts are not offered.",
        .filter = "NOT blocked",
    },
    {
        .id = "toAccount",
        .kind = RBS_ATOM_ACCOUNT,
        .caption = "Зачислить на счёт",
        .hint = "The account the money arrives at: any of your accounts but the one it leaves.",
        .filter = "number != $fromAccount",
    },
    {
        .id = "amount",
        .kind = RBS_ATOM_INPUT,
        .input_type = RBS_INPUT_AMOUNT,
        .caption = "Сумма",
        .currency = "RUB",
        .hint = "In the currency of the debit account, e.g. 1 500,00.",
        .valid_if = "amount > 0",
        .error_text = "Enter an amount greater than zero",
    },
    {
        .id = "btnTransfer",
        .kind = RBS_ATOM_BUTTON,
        .flags = RBS_ATOM_FLAG_SUBMIT,
        .caption = "Перевести",
    },
};

/* ---- one run ---- */

typedef struct transfer {
    const rbs_host_t *host;
    rbs_module_t *module;
    const rbs_accounts_service_t *accounts;
    const rbs_run_texts_service_t *texts; /* NULL on a host older than ABI 1.4 */
    char from[32];
    char to[32];
    char amount[40]; /* decimal string, '.' separator, as the host validated it */
} transfer_t;

static void copy_text(char *out, size_t size, const rbs_value_t *value) {
    out[0] = '\0';
    if (value->type == RBS_VALUE_TEXT && value->as.text.length < size) {
        memcpy(out, value->as.text.data, value->as.text.length);
        out[value->as.text.length] = '\0';
    } else if (value->type == RBS_VALUE_MONEY && strlen(value->as.money.amount) < size) {
        strcpy(out, value->as.money.amount);
    }
}

/* A decimal string with at most 2 fraction digits, as minor units. Returns 0 on malformed text. */
static int to_minor(const char *text, long long *out) {
    long long units = 0, fraction = 0;
    int fraction_digits = 0, negative = 0;
    const char *p = text;
    if (*p == '-') { negative = 1; p++; }
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9') units = units * 10 + (*p++ - '0');
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9' && fraction_digits < 2) { fraction = fraction * 10 + (*p++ - '0'); fraction_digits++; }
    }
    if (*p != '\0') return 0;
    while (fraction_digits++ < 2) fraction *= 10;
    *out = (units * 100 + fraction) * (negative ? -1 : 1);
    return 1;
}

/* A decimal string ("125000.00") as Russian writes it ("125 000,00"): digits grouped by three with a space, a
 * comma before the fraction. */
static void russian_amount(const char *plain, char *out, size_t size) {
    size_t whole = strcspn(plain, "."), at = 0;
    for (size_t i = 0; plain[i] != '\0' && at + 4 < size; i++) {
        if (i < whole && i > 0 && plain[i] != '-' && (whole - i) % 3 == 0 && plain[i - 1] != '-') out[at++] = ' ';
        out[at++] = plain[i] == '.' ? ',' : plain[i];
    }
    out[at] = '\0';
}

/* Marks `atom` (NULL: the whole form) in Russian, this plugin's own language, and in English: the host shows the
 * person's (rbs.run-texts/1, ABI 1.4); an older host gets the Russian through set_error. */
static void mark(const transfer_t *self, const char *atom, const char *ru, const char *en) {
    const rbs_host_t *host = self->host;
    const rbs_text_variant_t variants[] = { { "ru", ru }, { "en", en } };
    if (self->texts != NULL && self->texts->set_error(self->texts->context, self->module, atom, 2, variants)) return;
    host->set_error(host, self->module, atom, ru);
}

/* Re-checks the pair of accounts and the amount against the balance; marks the form or clears it. */
static void check(transfer_t *self) {
    const rbs_host_t *host = self->host;
    host->set_error(host, self->module, NULL, NULL);
    host->set_error(host, self->module, "amount", NULL);
    if (self->accounts == NULL || self->from[0] == '\0') return;
    rbs_account_t from;
    if (!self->accounts->find(self->accounts->context, self->from, &from)) return;
    char from_currency[8], from_balance[40];
    snprintf(from_currency, sizeof from_currency, "%s", from.currency);
    snprintf(from_balance, sizeof from_balance, "%s", from.balance);
    if (self->to[0] != '\0') {
        if (strcmp(self->from, self->to) == 0) {
            mark(self, NULL, "Выберите два разных счёта", "Choose two different accounts");
            return;
        }
        /* Accounts in two currencies are converted by the core at the bank's rate (the amount is in the debit
         * account's currency); the review shows the credited amount, the rate and its time before signing. */
    }
    long long amount, balance;
    if (self->amount[0] != '\0' && to_minor(self->amount, &amount) && to_minor(from_balance, &balance) && amount > balance) {
        char ru[160], en[160], shown[64];
        russian_amount(from_balance, shown, sizeof shown);
        snprintf(ru, sizeof ru, "Сумма больше остатка: %s %s", shown, from_currency);
        snprintf(en, sizeof en, "The amount is more than the balance of %s %s", from_balance, from_currency);
        mark(self, "amount", ru, en);
    }
}

static void *transfer_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation;
    transfer_t *self = calloc(1, sizeof *self);
    if (self == NULL) return NULL;
    self->host = host;
    self->module = module;
    self->accounts = host->get_service(host, RBS_SERVICE_ACCOUNTS);
    if (self->accounts == NULL) host->log(host, RBS_LOG_WARNING, "no accounts service: balances are not checked");
    self->texts = host->get_service(host, RBS_SERVICE_RUN_TEXTS);
    return self;
}

static void transfer_destroy(void *instance) { free(instance); }

static rbs_status_t transfer_value_changed(void *instance, const char *atom_id, const rbs_value_t *value, bool commit) {
    transfer_t *self = instance;
    if (!commit) return RBS_OK;
    if (strcmp(atom_id, "fromAccount") == 0) copy_text(self->from, sizeof self->from, value);
    else if (strcmp(atom_id, "toAccount") == 0) copy_text(self->to, sizeof self->to, value);
    else if (strcmp(atom_id, "amount") == 0) copy_text(self->amount, sizeof self->amount, value);
    else return RBS_OK;
    check(self);
    return RBS_OK;
}

static rbs_status_t transfer_build_document(void *instance, const rbs_document_builder_t *builder) {
    transfer_t *self = instance;
    check(self);
    rbs_account_t from;
    char currency[8] = "RUB";
    if (self->accounts != NULL && self->accounts->find(self->accounts->context, self->from, &from)) {
        snprintf(currency, sizeof currency, "%s", from.currency);
    }
    bool ok = builder->put(builder, "from", self->from)
        && builder->put(builder, "account", self->to)
        && builder->put(builder, "amount", self->amount)
        && builder->put(builder, "currency", currency)
        && builder->put(builder, "purpose", "Перевод между своими счетами");
    return ok ? RBS_OK : RBS_FAILED;
}

static const rbs_operation_descriptor_t operations[] = {
    {
        .id = "transfer.own",
        .title = "Transfer between own accounts",
        .category = "Transfers",
        .atom_count = sizeof atoms / sizeof atoms[0],
        .atoms = atoms,
        .create = transfer_create,
        .destroy = transfer_destroy,
        .value_changed = transfer_value_changed,
        .build_document = transfer_build_document,
    },
};

static const rbs_plugin_descriptor_t descriptor = {
    .id = "ru.example.transfers",
    .name = "Transfers",
    .version = "1.0.0",
    .vendor = "Example Bank",
    .description = "Transfers between the customer's own accounts.",
    .operation_count = 1,
    .operations = operations,
};

/* rbs.document-labels/1 (ABI 1.1): what the document's fields mean in the review before signing. A host of ABI 1.0
 * never asks and shows the atoms' captions and the keys instead. */
static const rbs_document_label_t document_labels[] = {
    { .operation_id = "transfer.own", .key = "from", .role = RBS_FIELD_ROLE_DEBIT_ACCOUNT, .atom_id = "fromAccount" },
    { .operation_id = "transfer.own", .key = "account", .role = RBS_FIELD_ROLE_PAYEE_ACCOUNT, .atom_id = "toAccount" },
    { .operation_id = "transfer.own", .key = "amount", .role = RBS_FIELD_ROLE_AMOUNT, .atom_id = "amount" },
    { .operation_id = "transfer.own", .key = "currency", .label = "Валюта", .role = RBS_FIELD_ROLE_CURRENCY },
    { .operation_id = "transfer.own", .key = "purpose", .label = "Назначение", .role = RBS_FIELD_ROLE_PURPOSE },
};

static const rbs_document_labels_extension_t document_labels_extension = {
    .count = sizeof document_labels / sizeof document_labels[0],
    .labels = document_labels,
};

/* rbs.texts/1 (ABI 1.2): the texts above in Russian and in English, so each person reads the form, the review, the
 * journal and the receipt in their own language. A text a language leaves out keeps the descriptor's; a host older
 * than ABI 1.2 never asks and shows the descriptor's texts. */
#define TEXT(what, target, text) { what, "transfer.own", target, NULL, text }
static const rbs_translated_text_t russian[] = {
    TEXT(RBS_TEXT_OPERATION_TITLE, NULL, "Перевод между своими счетами"),
    TEXT(RBS_TEXT_OPERATION_CATEGORY, NULL, "Переводы"),
    TEXT(RBS_TEXT_ATOM_HINT, "fromAccount", "Счёт, с которого уходят деньги. Заблокированные счета не предлагаются."),
    TEXT(RBS_TEXT_ATOM_HINT, "toAccount", "Счёт, на который приходят деньги: любой ваш счёт, кроме счёта списания."),
    TEXT(RBS_TEXT_ATOM_HINT, "amount", "В валюте счёта списания, например 1 500,00."),
    TEXT(RBS_TEXT_ATOM_ERROR, "amount", "Введите сумму больше нуля"),
};
static const rbs_translated_text_t english[] = {
    TEXT(RBS_TEXT_ATOM_CAPTION, "fromAccount", "Debit account"),
    TEXT(RBS_TEXT_ATOM_CAPTION, "toAccount", "Credit account"),
    TEXT(RBS_TEXT_ATOM_CAPTION, "amount", "Amount"),
    TEXT(RBS_TEXT_ATOM_CAPTION, "btnTransfer", "Transfer"),
    TEXT(RBS_TEXT_DOCUMENT_LABEL, "currency", "Currency"),
    TEXT(RBS_TEXT_DOCUMENT_LABEL, "purpose", "Purpose"),
};
#undef TEXT

static const rbs_language_texts_t languages[] = {
    { .language = "ru", .count = sizeof russian / sizeof russian[0], .texts = russian },
    { .language = "en", .count = sizeof english / sizeof english[0], .texts = english },
};

static const rbs_texts_extension_t texts_extension = {
    .language_count = sizeof languages / sizeof languages[0],
    .languages = languages,
};

/* rbs.amount-currency/1 (ABI 1.6): the amount is in the currency of the debit account, whichever is chosen: the host
 * asks for it, checks it and hands it over in that currency (a USD account's amount in USD). A host older than 1.6
 * never asks and keeps the descriptor's RUB. */
static const rbs_amount_currency_t amount_currencies[] = {
    { .operation_id = "transfer.own", .amount_atom_id = "amount", .account_atom_id = "fromAccount" },
};

static const rbs_amount_currency_extension_t amount_currency_extension = {
    .count = sizeof amount_currencies / sizeof amount_currencies[0],
    .amounts = amount_currencies,
};

static const void *transfer_get_extension(const char *id) {
    if (strcmp(id, RBS_EXT_DOCUMENT_LABELS) == 0) return &document_labels_extension;
    if (strcmp(id, RBS_EXT_TEXTS) == 0) return &texts_extension;
    if (strcmp(id, RBS_EXT_AMOUNT_CURRENCY) == 0) return &amount_currency_extension;
    return NULL;
}

static const rbs_plugin_entry_t entry = {
    .abi_version = RBS_ABI_VERSION_INIT,
    .descriptor = &descriptor,
    .get_extension = transfer_get_extension,
};

RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
