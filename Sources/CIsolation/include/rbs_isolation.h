/*
 * rbs_isolation.h — what a plugin worker needs from the kernel that Swift cannot call directly (syscall() is
 * variadic): Landlock, seccomp-bpf, dropping root, and a sealed copy of the image. Host-internal; not part of the
 * plugin ABI.
 */
#ifndef RBS_ISOLATION_H
#define RBS_ISOLATION_H
#include <stddef.h>
#include <stdint.h>

/* The Landlock ABI version the kernel offers (1...), or 0 when it has none (or it is disabled). */
int rbs_landlock_abi(void);

/* Restricts this process (and its future children) for good: files may be read and executed only under the
 * `read_count` directories or files in `read_paths`, written only under the `write_count` ones in `write_paths`;
 * everything else (the data folder among it) is denied. Where the ABI has them, TCP bind/connect are denied and
 * signals and abstract UNIX sockets are scoped to the process. Paths that do not exist are skipped.
 * Returns the ABI version used (> 0), or -errno; `why` (if not NULL) gets a short reason on failure. */
int rbs_landlock_restrict(const char *const *read_paths, int read_count, const char *const *write_paths,
                          int write_count, char *why, size_t why_size);

/* rbs_landlock_restrict, and besides the `own_count` folders in `own_folders`, where files and folders may also be
 * made, renamed and removed (the throw-away data folder of `plugin check`'s child). */
int rbs_landlock_restrict_folders(const char *const *read_paths, int read_count, const char *const *write_paths,
                                  int write_count, const char *const *own_folders, int own_count, char *why,
                                  size_t why_size);

/* Installs the worker's seccomp-bpf filter on every thread (see seccomp.c: an allow-list; a forbidden call writes
 * its number, an int, to `report_fd` and the process dies of SIGSYS). Sets PR_SET_NO_NEW_PRIVS.
 * Returns 0 or -errno with `why`. */
int rbs_seccomp_install(int report_fd, char *why, size_t why_size);

/* rbs_seccomp_install, and with `manage_files` also the calls that make, rename, truncate and remove files and
 * folders (Landlock keeps them to the process's own folders): `plugin check`'s child, whose ledger is its own. */
int rbs_seccomp_install_managing_files(int report_fd, int manage_files, char *why, size_t why_size);

/* The name of system call `number` on this architecture, for the calls a plugin is likely to be killed for;
 * NULL for others. */
const char *rbs_syscall_name(int number);

/* Leaves root for good: no supplementary groups, then real, effective and saved gid and uid set to `gid`/`uid`;
 * checks that root cannot be regained. Returns 0 or -errno with `why`. */
int rbs_drop_privileges(unsigned int uid, unsigned int gid, char *why, size_t why_size);

/* Asks for SIGKILL when the parent (the thread that started this process) ends — to be called after any change of
 * user, which clears it — and checks the parent is still `parent`. Returns 0, or -ESRCH when it is gone already. */
int rbs_die_with_parent(int parent);

/* A sealed, close-on-exec memory file holding the bytes of `path` (read while the process still may), to open by
 * /proc/self/fd/N once it may not. Returns the descriptor, or -errno with `why`. */
int rbs_memfd_copy(const char *path, char *why, size_t why_size);

/* pipe2(fds, O_CLOEXEC): a pipe whose ends are closed on exec from the moment they exist, so a child another thread
 * spawns at the same time never inherits them (Swift's Glibc module does not import pipe2). Returns 0 or -1 (errno). */
int rbs_pipe_cloexec(int fds[2]);

#endif
