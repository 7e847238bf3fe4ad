/*
 * The fault corpus: one plugin that misbehaves in one way (FAULT) at one place (WHERE), built at test time with
 * -DFAULT=... -DWHERE=... -DPLUGIN_ID=... -DDATA_DIR=... . Without FAULT it is a well-behaved payment operation
 * (from, account, amount), the "other customer's" plugin whose run must finish while a neighbour faults.
 *
 * WHERE: 1 create, 2 value_changed, 3 action, 4 build_document, 5 an exported function (valid_if), 6 init().
 * FAULT: 1 segfault, 2 abort, 3 exit(0), 4 endless loop, 5 read DATA/signing.key, 6 write DATA/rbs.sqlite,
 *        7 abort unless started as a scan, 8 stack overflow, 9 malloc bomb, 10 close stdin/stdout/channel,
 *        11 write garbage to the protocol channel, 12 read /etc/shadow, 13 fork a child that calls setsid() and
 *        sleeps, 14 open a TCP socket to 127.0.0.1:9, 15 execve /bin/sh, 16 allocate 2 GiB (abort when refused),
 *        17 a Rust panic's last words then abort, 18 a slow call: sleep SLEEP_MS milliseconds (default 3000, under
 *        the host's deadline: never a fault), then go on as a good plugin, 19 take SIGSYS's handler over (ignore
 *        it; abort if that was allowed), read its action (abort if refused), then open a TCP socket as 14,
 *        20 lower the calling thread's priority (abort if refused), then raise it and lower another process's (abort
 *        unless each is refused with EPERM), then go on as a good plugin.
 */
#define _GNU_SOURCE
#include <rbs_plugin.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef PLUGIN_ID
#define PLUGIN_ID "test.fault"
#endif
#ifndef OPERATION_ID
#define OPERATION_ID "fault.op"
#endif
#ifndef FAULT
#define FAULT 0
#endif
#ifndef WHERE
#define WHERE 0
#endif
#ifndef SLEEP_MS
#define SLEEP_MS 3000
#endif
#ifndef DATA_DIR
#define DATA_DIR "/nonexistent"
#endif

static volatile int sink;

static int recurse(int depth) {
    char buffer[4096];
    memset(buffer, depth, sizeof buffer);
    sink = buffer[depth % 4096];
    return recurse(depth + 1) + buffer[7];
}

/* Misbehaves when `where` is the configured place. Returns 1 when the fault was "soft" (a refused file access):
 * the plugin then reports what it could do, through the host's log. */
static void misbehave(int where, const rbs_host_t *host) {
    if (FAULT == 0 || where != WHERE) return;
    switch (FAULT) {
    case 1: { volatile int *null = NULL; *null = 1; break; }
    case 2: abort();
    case 3: exit(0);
    case 4: for (;;) sink++;
    case 5: {
        int fd = open(DATA_DIR "/signing.key", O_RDONLY);
        char buffer[256] = {0};
        ssize_t got = fd >= 0 ? read(fd, buffer, sizeof buffer - 1) : -1;
        if (host) host->log(host, RBS_LOG_ERROR, got > 0 ? "LEAKED signing.key" : "signing.key: denied");
        if (got > 0) abort(); /* make a leak impossible to miss */
        if (fd >= 0) close(fd);
        break;
    }
    case 6: {
        int fd = open(DATA_DIR "/rbs.sqlite", O_WRONLY | O_TRUNC);
        if (host) host->log(host, RBS_LOG_ERROR, fd >= 0 ? "TRUNCATED rbs.sqlite" : "rbs.sqlite: denied");
        if (fd >= 0) abort();
        break;
    }
    case 7: {
        char cmdline[4096] = {0};
        int fd = open("/proc/self/cmdline", O_RDONLY);
        ssize_t got = fd >= 0 ? read(fd, cmdline, sizeof cmdline - 1) : 0;
        if (fd >= 0) close(fd);
        int scanning = 0;
        for (ssize_t i = 0; i < got; i += (ssize_t)strlen(cmdline + i) + 1) {
            if (strcmp(cmdline + i, "scan") == 0 || strcmp(cmdline + i, "check") == 0) scanning = 1;
        }
        if (!scanning) abort();
        break;
    }
    case 8: sink = recurse(0); break;
    case 9: for (;;) { char *p = malloc(64 << 20); if (!p) abort(); memset(p, 1, 64 << 20); } 
    case 10: close(0); close(1); close(3); for (;;) sink++;
    case 11: { const char junk[] = "\xff\xff\xff\x7fgarbage"; for (int i = 0; i < 3; i++) write(3, junk, sizeof junk); for (;;) sink++; }
    case 12: {
        int fd = open("/etc/shadow", O_RDONLY);
        char buffer[64];
        ssize_t got = fd >= 0 ? read(fd, buffer, sizeof buffer) : -1;
        if (host) host->log(host, RBS_LOG_ERROR, got > 0 ? "LEAKED /etc/shadow" : "/etc/shadow: denied");
        if (got > 0) abort();
        if (fd >= 0) close(fd);
        break;
    }
    case 13: {
        pid_t child = fork();
        if (child == 0) { setsid(); for (;;) pause(); }
        break;
    }
    case 14: {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(0x7f000001)};
        if (fd >= 0) connect(fd, (struct sockaddr *)&address, sizeof address);
        break;
    }
    case 15: {
        char *const argv[] = {"/bin/sh", "-c", "true", NULL};
        execve("/bin/sh", argv, NULL);
        break;
    }
    case 17: {
        /* What a Rust panic writes before the abort (panic = "abort"), then a line of its own before that. */
        fputs("fault: reading the tariff table\n", stderr);
        fputs("thread '<unnamed>' panicked at src/lib.rs:294:5:\nthe tariff table is corrupt at row 7\n", stderr);
        fputs("note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n", stderr);
        abort();
    }
    case 18: {
        struct timespec pause = {.tv_sec = SLEEP_MS / 1000, .tv_nsec = (SLEEP_MS % 1000) * 1000000L};
        while (nanosleep(&pause, &pause) != 0) {}
        break;
    }
    case 19: {
        struct sigaction ignore, was;
        memset(&ignore, 0, sizeof ignore);
        ignore.sa_handler = SIG_IGN;
        if (sigaction(SIGSYS, &ignore, NULL) == 0) abort();
        if (sigaction(SIGSYS, NULL, &was) != 0) abort();
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0) close(fd);
        break;
    }
    case 20: {
        if (setpriority(PRIO_PROCESS, 0, 5) != 0) abort();
        if (setpriority(PRIO_PROCESS, 0, -5) == 0 || errno != EPERM) abort();
        /* Another process's: one that cannot exist (past any pid_max), so without the filter it is ESRCH and no
         * process is reniced whatever happens; the filter refuses it first. */
        if (setpriority(PRIO_PROCESS, (id_t)0x7ffffffe, 10) == 0 || errno != EPERM) abort();
        break;
    }
    case 16: {
        size_t size = (size_t)2 << 30;
        char *p = malloc(size);
        if (!p) abort();
        memset(p, 1, size);
        sink = p[size - 1];
        free(p);
        break;
    }
    }
}

typedef struct {
    const rbs_host_t *host;
    rbs_module_t *module;
} state_t;

static void *op_create(const rbs_operation_descriptor_t *operation, const rbs_host_t *host, rbs_module_t *module) {
    (void)operation;
    misbehave(1, host);
    state_t *state = calloc(1, sizeof *state);
    if (!state) return NULL;
    state->host = host;
    state->module = module;
    return state;
}

static void op_destroy(void *instance) { free(instance); }

static rbs_status_t op_changed(void *instance, const char *atom, const rbs_value_t *value, bool commit) {
    (void)value; (void)commit;
    state_t *state = instance;
    misbehave(2, state->host);
    if (strcmp(atom, "account") == 0) state->host->set_caption(state->host, state->module, "note", "payee set");
    return RBS_OK;
}

static rbs_status_t op_action(void *instance, const char *atom) {
    (void)atom;
    state_t *state = instance;
    misbehave(3, state->host);
    return RBS_OK;
}

static bool put_value(const rbs_document_builder_t *builder, state_t *state, const char *atom, const char *key) {
    rbs_value_t value;
    if (!state->host->get_value(state->host, state->module, atom, &value)) return false;
    if (value.type == RBS_VALUE_MONEY) return builder->put(builder, key, value.as.money.amount);
    if (value.type == RBS_VALUE_TEXT || value.type == RBS_VALUE_DECIMAL) return builder->put(builder, key, value.as.text.data);
    return false;
}

static rbs_status_t op_build(void *instance, const rbs_document_builder_t *builder) {
    state_t *state = instance;
    misbehave(4, state->host);
    if (!put_value(builder, state, "from", "from")) return RBS_FAILED;
    if (!put_value(builder, state, "account", "account")) return RBS_FAILED;
    if (!put_value(builder, state, "amount", "amount")) return RBS_FAILED;
    builder->put(builder, "currency", "RUB");
    builder->put(builder, "name", "Fault corpus payee");
    builder->put(builder, "purpose", "fault corpus");
    return RBS_OK;
}

RBS_EXPORT bool fault_check(const char *text) {
    misbehave(5, NULL);
    return text != NULL && strlen(text) == 20;
}

static const rbs_atom_descriptor_t atoms[] = {
    {.id = "note", .kind = RBS_ATOM_TEXT, .caption = "Fault corpus"},
    {.id = "from", .kind = RBS_ATOM_ACCOUNT, .caption = "From"},
    {.id = "account", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_DIGITS, .min_length = 20, .max_length = 20,
     .caption = "Account", .valid_if = "fault_check($account)", .error_text = "20 digits"},
    {.id = "amount", .kind = RBS_ATOM_INPUT, .input_type = RBS_INPUT_AMOUNT, .currency = "RUB", .caption = "Amount"},
    {.id = "poke", .kind = RBS_ATOM_BUTTON, .caption = "Poke"},
};

static const rbs_function_descriptor_t functions[] = {
    {.name = "fault_check", .symbol = "fault_check", .signature = "bool(string)"},
};

static const rbs_operation_descriptor_t operations[] = {{
    .id = OPERATION_ID, .title = "Fault corpus", .category = "Tests",
    .atom_count = sizeof atoms / sizeof atoms[0], .atoms = atoms,
    .function_count = 1, .functions = functions,
    .create = op_create, .destroy = op_destroy, .value_changed = op_changed, .action = op_action,
    .build_document = op_build,
}};

static const rbs_plugin_descriptor_t descriptor = {
    .id = PLUGIN_ID, .name = "Fault corpus", .version = "1.0.0", .vendor = "Tests",
    .operation_count = 1, .operations = operations,
};

static bool plugin_init(const rbs_host_t *host) {
    misbehave(6, host);
    return true;
}

static const rbs_plugin_entry_t entry = {.abi_version = RBS_ABI_VERSION_INIT, .descriptor = &descriptor,
                                         .init = plugin_init};

RBS_EXPORT const rbs_plugin_entry_t *rbs_plugin_entry(void) { return &entry; }
