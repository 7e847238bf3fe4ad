#define _GNU_SOURCE
#include "rbs_isolation.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Defined here rather than taken from <linux/landlock.h>: the build machine's headers may predate the ABI the
 * running kernel offers. Values are from the kernel's UAPI (stable). */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

struct rbs_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct __attribute__((packed)) rbs_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
};

#define RBS_LL_CREATE_RULESET_VERSION (1U << 0)
#define RBS_LL_RULE_PATH_BENEATH 1

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)
#define NET_BIND_TCP (1ULL << 0)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

int rbs_landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, RBS_LL_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

static int fail(char *why, size_t size, const char *what, int error) {
    if (why && size) snprintf(why, size, "%s: %s", what, strerror(error));
    return -error;
}

static int add(int ruleset, const char *path, uint64_t access, uint64_t handled) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return 0; /* a path this machine lacks needs no rule */
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) {
        /* Rules on a file may only name file rights. */
        access &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV;
    }
    struct rbs_path_beneath rule = {.allowed_access = access & handled, .parent_fd = fd};
    long result = syscall(SYS_landlock_add_rule, ruleset, RBS_LL_RULE_PATH_BENEATH, &rule, 0);
    int error = errno;
    close(fd);
    return result < 0 ? -error : 0;
}

int rbs_landlock_restrict(const char *const *read_paths, int read_count, const char *const *write_paths,
                          int write_count, char *why, size_t why_size) {
    return rbs_landlock_restrict_folders(read_paths, read_count, write_paths, write_count, NULL, 0, why, why_size);
}

int rbs_landlock_restrict_folders(const char *const *read_paths, int read_count, const char *const *write_paths,
                                  int write_count, const char *const *own_folders, int own_count, char *why,
                                  size_t why_size) {
    int abi = rbs_landlock_abi();
    if (abi <= 0) return fail(why, why_size, "the kernel offers no Landlock", ENOSYS);
    uint64_t fs = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_READ_DIR | FS_REMOVE_DIR | FS_REMOVE_FILE |
                  FS_MAKE_CHAR | FS_MAKE_DIR | FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM;
    if (abi >= 2) fs |= FS_REFER;
    if (abi >= 3) fs |= FS_TRUNCATE;
    if (abi >= 5) fs |= FS_IOCTL_DEV;
    struct rbs_ruleset_attr attr = {.handled_access_fs = fs};
    size_t size = sizeof(uint64_t);
    if (abi >= 4) {
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
        size = 2 * sizeof(uint64_t);
    }
    if (abi >= 6) {
        attr.scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL;
        size = 3 * sizeof(uint64_t);
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) return fail(why, why_size, "landlock_create_ruleset", errno);
    uint64_t read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
    uint64_t write = read | FS_WRITE_FILE | (abi >= 3 ? FS_TRUNCATE : 0) | (abi >= 5 ? FS_IOCTL_DEV : 0);
    for (int i = 0; i < read_count; i++) {
        int error = add(ruleset, read_paths[i], read, fs);
        if (error < 0) { close(ruleset); return fail(why, why_size, read_paths[i], -error); }
    }
    for (int i = 0; i < write_count; i++) {
        int error = add(ruleset, write_paths[i], write, fs);
        if (error < 0) { close(ruleset); return fail(why, why_size, write_paths[i], -error); }
    }
    /* A folder of the process's own: files and folders in it made, written, renamed and removed (a database's
     * journal files). Never special files: no devices, sockets or pipes made there. */
    uint64_t own = write | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_DIR | FS_MAKE_REG | (abi >= 2 ? FS_REFER : 0);
    for (int i = 0; i < own_count; i++) {
        int error = add(ruleset, own_folders[i], own, fs);
        if (error < 0) { close(ruleset); return fail(why, why_size, own_folders[i], -error); }
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        int error = errno;
        close(ruleset);
        return fail(why, why_size, "prctl(PR_SET_NO_NEW_PRIVS)", error);
    }
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
        int error = errno;
        close(ruleset);
        return fail(why, why_size, "landlock_restrict_self", error);
    }
    close(ruleset);
    return abi;
}
