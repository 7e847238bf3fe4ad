/*
 * rbs_isolation.h — what a plugin worker needs from the kernel that Swift cannot call directly (syscall() is
 * variadic): Landlock, and reading the resident set size. Host-internal; not part of the plugin ABI.
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

/* pipe2(fds, O_CLOEXEC): a pipe whose ends are closed on exec from the moment they exist, so a child another thread
 * spawns at the same time never inherits them (Swift's Glibc module does not import pipe2). Returns 0 or -1 (errno). */
int rbs_pipe_cloexec(int fds[2]);

#endif
