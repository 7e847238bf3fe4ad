#define _GNU_SOURCE
#include "rbs_isolation.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

/*
 * The worker's system-call filter (seccomp-bpf), after Chromium's Linux sandbox: an allow-list of what a plugin (C,
 * Swift, Rust) and the worker's own serving loop need; everything else traps. The trap's handler, installed before
 * the filter, writes the call's number to the report descriptor (the host names the call in the fault it reports),
 * then ends the process with SIGSYS by a call the filter kills on (rt_sigaction of SIGSYS with no action and no
 * old action), so a plugin can neither take the handler over (a new action for SIGSYS is refused) nor carry on. Threads are allowed (clone with CLONE_THREAD); new processes (fork,
 * vfork, clone without CLONE_THREAD), execve, and sockets are not. clone3 answers ENOSYS: its flags live in memory
 * the filter cannot read, and the C library then falls back to clone.
 */

#if defined(__x86_64__)
#define RBS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define RBS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "the worker's seccomp filter knows x86_64 and aarch64 only"
#endif

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC
#define SECCOMP_FILTER_FLAG_TSYNC 1
#endif
#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif

#define NR_OFFSET (offsetof(struct seccomp_data, nr))
#define ARCH_OFFSET (offsetof(struct seccomp_data, arch))
/* The low 32 bits of argument `n` (little-endian): every argument checked here is an int or flags the kernel reads
 * as 32 bits. */
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n))
/* The high 32 bits of argument `n`: with ARG_LOW, a whole pointer (whether it is NULL). */
#define ARG_HIGH(n) (ARG_LOW(n) + 4)

#define LOAD(offset) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (offset))
#define RET(value) BPF_STMT(BPF_RET | BPF_K, (value))
/* if A == value go on, else skip `skip` instructions */
#define IF_EQ(value, skip) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (value), 0, (skip))
/* if A == value skip `skip` instructions, else go on */
#define JEQ_TO(value, skip) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (value), (skip), 0)
#define ALLOW RET(SECCOMP_RET_ALLOW)
#define TRAP RET(SECCOMP_RET_TRAP)

/* Calls allowed whatever their arguments. */
static const int allowed[] = {
    /* files (Landlock decides which), descriptors */
    SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_pwrite64, SYS_preadv, SYS_pwritev,
#ifdef SYS_preadv2
    SYS_preadv2, SYS_pwritev2,
#endif
#ifdef SYS_open
    SYS_open, SYS_stat, SYS_lstat, SYS_access, SYS_readlink, SYS_poll, SYS_select, SYS_pipe, SYS_dup2,
    SYS_getdents, SYS_time, SYS_alarm,
#endif
    SYS_openat, SYS_close, SYS_lseek, SYS_fstat, SYS_newfstatat, SYS_faccessat, SYS_readlinkat,
    SYS_getdents64, SYS_getcwd, SYS_statfs, SYS_fstatfs, SYS_fcntl, SYS_dup, SYS_dup3, SYS_pipe2, SYS_fsync,
    SYS_fdatasync, SYS_fadvise64, SYS_flock,
#ifdef SYS_statx
    SYS_statx,
#endif
#ifdef SYS_faccessat2
    SYS_faccessat2,
#endif
#ifdef SYS_close_range
    SYS_close_range,
#endif
    /* memory */
    SYS_mmap, SYS_munmap, SYS_mprotect, SYS_mremap, SYS_madvise, SYS_brk, SYS_msync, SYS_mincore,
#ifdef SYS_membarrier
    SYS_membarrier,
#endif
    /* signals (rt_sigaction is checked below) */
    SYS_rt_sigprocmask, SYS_rt_sigreturn, SYS_sigaltstack, SYS_rt_sigpending, SYS_rt_sigsuspend,
    SYS_rt_sigtimedwait,
    /* threads and their synchronisation */
    SYS_futex, SYS_set_robust_list, SYS_get_robust_list, SYS_set_tid_address, SYS_sched_yield,
    SYS_sched_getaffinity, SYS_sched_getparam, SYS_sched_getscheduler, SYS_sched_get_priority_max,
    SYS_sched_get_priority_min, SYS_getcpu, SYS_exit, SYS_exit_group, SYS_restart_syscall,
#ifdef SYS_rseq
    SYS_rseq,
#endif
#ifdef SYS_futex_waitv
    SYS_futex_waitv,
#endif
#ifdef SYS_arch_prctl
    SYS_arch_prctl,
#endif
    /* who am I, what time is it */
    SYS_getpid, SYS_gettid, SYS_getppid, SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid, SYS_getgroups,
    SYS_getresuid, SYS_getresgid, SYS_getpgid, SYS_getsid, SYS_uname, SYS_sysinfo, SYS_getrusage, SYS_times,
    SYS_getrlimit, SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday, SYS_nanosleep, SYS_clock_nanosleep, SYS_pause,
    SYS_getrandom, SYS_getitimer, SYS_setitimer,
    /* waiting, on the host's channel and the runtime's own descriptors */
    SYS_ppoll, SYS_pselect6, SYS_epoll_create1, SYS_epoll_ctl, SYS_epoll_pwait, SYS_eventfd2,
    SYS_timerfd_create, SYS_timerfd_settime, SYS_timerfd_gettime,
#ifdef SYS_epoll_wait
    SYS_epoll_wait,
#endif
    /* the channel to the host (an already connected socket): no new socket can be made */
    SYS_recvfrom, SYS_recvmsg, SYS_sendto, SYS_sendmsg, SYS_shutdown, SYS_getsockopt, SYS_getsockname,
};

/* Managing files in a folder of the process's own (`plugin check`'s child: its throw-away ledger and image copy);
 * Landlock decides where. */
static const int file_management[] = {
#ifdef SYS_mkdir
    SYS_mkdir, SYS_unlink, SYS_rename, SYS_rmdir, SYS_chmod,
#endif
    SYS_mkdirat, SYS_unlinkat, SYS_renameat, SYS_ftruncate, SYS_fchmod, SYS_fchmodat, SYS_utimensat,
#ifdef SYS_renameat2
    SYS_renameat2,
#endif
};

static int own_pid;
static int report_fd = -1;

/* A forbidden call: say which, then die of SIGSYS. Only async-signal-safe calls, all of them allowed. */
static void on_forbidden_call(int signal, siginfo_t *info, void *context) {
    (void)signal; (void)context;
    int number = info->si_syscall;
    if (report_fd >= 0) {
        ssize_t written = write(report_fd, &number, sizeof number);
        (void)written;
    } else {
        /* No report channel (`plugin check`'s child): a line on standard error, the child's last words. */
        char line[96];
        size_t n = 0;
        const char *head = "the sandbox refused a system call: ";
        const char *name = rbs_syscall_name(number);
        for (const char *c = head; *c && n < 40; c++) line[n++] = *c;
        for (const char *c = name ? name : "number"; *c && n < 72; c++) line[n++] = *c;
        char digits[12];
        int d = 0;
        unsigned value = (unsigned)number;
        do { digits[d++] = (char)('0' + value % 10); value /= 10; } while (value && d < 11);
        line[n++] = ' ';
        line[n++] = '(';
        while (d > 0) line[n++] = digits[--d];
        line[n++] = ')';
        line[n++] = '\n';
        ssize_t written = write(2, line, n);
        (void)written;
    }
    /* The filter kills the process on this call (SIGSYS, no action, no old action): this is the way out. */
    syscall(SYS_rt_sigaction, SIGSYS, NULL, NULL, sizeof(sigset_t));
    syscall(SYS_exit_group, 128 + SIGSYS);
}

int rbs_seccomp_install(int report, char *why, size_t why_size) {
    return rbs_seccomp_install_managing_files(report, 0, why, why_size);
}

int rbs_seccomp_install_managing_files(int report, int manage_files, char *why, size_t why_size) {
    own_pid = (int)getpid();
    report_fd = report;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_forbidden_call;
    action.sa_flags = SA_SIGINFO;
    sigfillset(&action.sa_mask);
    if (sigaction(SIGSYS, &action, NULL) != 0) {
        if (why && why_size) snprintf(why, why_size, "sigaction(SIGSYS): %s", strerror(errno));
        return -errno;
    }
    sigset_t sys;
    sigemptyset(&sys);
    sigaddset(&sys, SIGSYS);
    sigprocmask(SIG_UNBLOCK, &sys, NULL);

    enum { capacity = 512 };
    struct sock_filter program[capacity];
    int n = 0;
#define PUT(instruction) do { if (n >= capacity) goto too_long; program[n++] = (struct sock_filter)instruction; } while (0)
    /* The architecture first: a call of another ABI has other numbers (and x32's carry a bit of their own). */
    PUT(LOAD(ARCH_OFFSET));
    PUT(IF_EQ(RBS_AUDIT_ARCH, 1));
    PUT(BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0));
    PUT(RET(SECCOMP_RET_KILL_PROCESS));
    PUT(LOAD(NR_OFFSET));
#if defined(__x86_64__)
    PUT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U /* __X32_SYSCALL_BIT */, 0, 1));
    PUT(RET(SECCOMP_RET_KILL_PROCESS));
#endif
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
        PUT(IF_EQ((unsigned)allowed[i], 1));
        PUT(ALLOW);
    }
    for (size_t i = 0; manage_files && i < sizeof file_management / sizeof file_management[0]; i++) {
        PUT(IF_EQ((unsigned)file_management[i], 1));
        PUT(ALLOW);
    }
    if (manage_files) {
        /* The checking child's own code reads file attributes the way Foundation does: the owner's name (the C
         * library tries nscd's socket first and falls back when it cannot) and extended attributes. Refused with an
         * error, not fatal — still no socket, no attribute read. */
        static const int refused[] = {SYS_socket, SYS_listxattr, SYS_llistxattr, SYS_flistxattr, SYS_getxattr,
                                      SYS_lgetxattr, SYS_fgetxattr};
        for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
            PUT(IF_EQ((unsigned)refused[i], 1));
            PUT(RET(SECCOMP_RET_ERRNO | (refused[i] == SYS_socket ? EACCES : ENOTSUP)));
        }
    }
    /* clone: threads only. */
    PUT(IF_EQ(SYS_clone, 4));
    PUT(LOAD(ARG_LOW(0)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
    PUT(ALLOW);
    PUT(TRAP);
    /* clone3: "not here", and the C library uses clone. */
#ifdef SYS_clone3
    PUT(IF_EQ(SYS_clone3, 1));
    PUT(RET(SECCOMP_RET_ERRNO | ENOSYS));
#endif
    /* rt_sigaction: any signal but SIGSYS, whose handler reports a forbidden call. For SIGSYS: a new action is
     * refused with EPERM (the handler cannot be taken over, and a runtime that installs handlers lazily on one of
     * its threads — seen once from a libdispatch thread in the checking child — carries on instead of dying
     * unexplained), reading the action is allowed, and the call with neither (the handler's way out) kills. */
    PUT(IF_EQ(SYS_rt_sigaction, 16));
    PUT(LOAD(ARG_LOW(0)));
    PUT(JEQ_TO(SIGSYS, 1));
    PUT(ALLOW);
    PUT(LOAD(ARG_LOW(1)));
    PUT(JEQ_TO(0, 1));
    PUT(RET(SECCOMP_RET_ERRNO | EPERM));
    PUT(LOAD(ARG_HIGH(1)));
    PUT(JEQ_TO(0, 1));
    PUT(RET(SECCOMP_RET_ERRNO | EPERM));
    PUT(LOAD(ARG_LOW(2)));
    PUT(JEQ_TO(0, 1));
    PUT(ALLOW);
    PUT(LOAD(ARG_HIGH(2)));
    PUT(JEQ_TO(0, 1));
    PUT(ALLOW);
    PUT(RET(SECCOMP_RET_KILL_PROCESS));
    /* setpriority: the calling thread's own nice value, never more favourable than the default — libdispatch lowers
     * a worker thread's for its QoS (the checking child was once killed by it loading a good plugin, `plugin check`'s
     * flaky SIGSYS); any other (another thread or process, a raise) is refused with EPERM, not fatal. */
    PUT(IF_EQ(SYS_setpriority, 10));
    PUT(LOAD(ARG_LOW(0)));
    PUT(JEQ_TO(PRIO_PROCESS, 1));
    PUT(RET(SECCOMP_RET_ERRNO | EPERM));
    PUT(LOAD(ARG_LOW(1)));
    PUT(JEQ_TO(0, 1));
    PUT(RET(SECCOMP_RET_ERRNO | EPERM));
    PUT(LOAD(ARG_LOW(2)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x80000000U /* a negative nice value */, 0, 1));
    PUT(RET(SECCOMP_RET_ERRNO | EPERM));
    PUT(ALLOW);
    /* kill, tgkill: this process only (a plugin may raise a signal on itself; abort() does). */
    PUT(IF_EQ(SYS_kill, 1));
    PUT(BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0));
    PUT(IF_EQ(SYS_tgkill, 4));
    PUT(LOAD(ARG_LOW(0)));
    PUT(IF_EQ((unsigned)own_pid, 1));
    PUT(ALLOW);
    PUT(TRAP);
    /* prlimit64: its own limits only (lowering them, or reading them). */
    PUT(IF_EQ(SYS_prlimit64, 4));
    PUT(LOAD(ARG_LOW(0)));
    PUT(IF_EQ(0, 1));
    PUT(ALLOW);
    PUT(TRAP);
    /* prctl: thread names and the C library's naming of its memory maps. */
    PUT(IF_EQ(SYS_prctl, 7));
    PUT(LOAD(ARG_LOW(0)));
    PUT(JEQ_TO(PR_SET_NAME, 4));
    PUT(JEQ_TO(PR_GET_NAME, 3));
    PUT(JEQ_TO(PR_SET_VMA, 2));
    PUT(JEQ_TO(PR_GET_DUMPABLE, 1));
    PUT(TRAP);
    PUT(ALLOW);
    /* ioctl: asking whether a descriptor is a terminal, and the non-blocking / close-on-exec switches. */
    PUT(IF_EQ(SYS_ioctl, 9));
    PUT(LOAD(ARG_LOW(1)));
    PUT(JEQ_TO(TCGETS, 6));
    PUT(JEQ_TO(TIOCGWINSZ, 5));
    PUT(JEQ_TO(FIONREAD, 4));
    PUT(JEQ_TO(FIONBIO, 3));
    PUT(JEQ_TO(FIOCLEX, 2));
    PUT(JEQ_TO(FIONCLEX, 1));
    PUT(TRAP);
    PUT(ALLOW);
    /* Everything else: fork, vfork, execve, socket, connect, ptrace, mount, setuid, ... */
    PUT(TRAP);
#undef PUT

    struct sock_fprog fprog = {.len = (unsigned short)n, .filter = program};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        if (why && why_size) snprintf(why, why_size, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
        return -errno;
    }
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fprog) != 0 &&
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0) {
        if (why && why_size) snprintf(why, why_size, "seccomp: %s", strerror(errno));
        return -errno;
    }
    return 0;
too_long:
    if (why && why_size) snprintf(why, why_size, "the filter has more than %d instructions", capacity);
    return -E2BIG;
}

int rbs_drop_privileges(unsigned int uid, unsigned int gid, char *why, size_t why_size) {
    if (setgroups(0, NULL) != 0) {
        if (why && why_size) snprintf(why, why_size, "setgroups: %s", strerror(errno));
        return -errno;
    }
    if (setresgid(gid, gid, gid) != 0) {
        if (why && why_size) snprintf(why, why_size, "setresgid(%u): %s", gid, strerror(errno));
        return -errno;
    }
    if (setresuid(uid, uid, uid) != 0) {
        if (why && why_size) snprintf(why, why_size, "setresuid(%u): %s", uid, strerror(errno));
        return -errno;
    }
    /* No way back: the saved ids are gone too, so this must fail. */
    if (setuid(0) == 0 || getuid() != uid || geteuid() != uid || getgid() != gid) {
        if (why && why_size) snprintf(why, why_size, "root could be regained after dropping it");
        return -EPERM;
    }
    return 0;
}

int rbs_memfd_copy(const char *path, char *why, size_t why_size) {
    int source = open(path, O_RDONLY | O_CLOEXEC);
    if (source < 0) {
        if (why && why_size) snprintf(why, why_size, "%s: %s", path, strerror(errno));
        return -errno;
    }
    int copy = (int)syscall(SYS_memfd_create, "plugin", 0x0001U /* MFD_CLOEXEC */ | 0x0002U /* MFD_ALLOW_SEALING */);
    if (copy < 0) {
        int error = errno;
        close(source);
        if (why && why_size) snprintf(why, why_size, "memfd_create: %s", strerror(error));
        return -error;
    }
    char buffer[65536];
    for (;;) {
        ssize_t got = read(source, buffer, sizeof buffer);
        if (got == 0) break;
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) goto failed;
        for (ssize_t done = 0; done < got;) {
            ssize_t put = write(copy, buffer + done, (size_t)(got - done));
            if (put < 0 && errno == EINTR) continue;
            if (put < 0) goto failed;
            done += put;
        }
    }
    close(source);
    /* Sealed: nothing in the worker can change the bytes the host checked. */
    fcntl(copy, 1033 /* F_ADD_SEALS */, 0x0001 | 0x0002 | 0x0004 | 0x0008 /* SEAL, SHRINK, GROW, WRITE */);
    return copy;
failed: {
        int error = errno;
        close(source);
        close(copy);
        if (why && why_size) snprintf(why, why_size, "copying %s: %s", path, strerror(error));
        return -error;
    }
}

#define NAME(call) {SYS_##call, #call}
static const struct { int number; const char *name; } names[] = {
#ifdef SYS_fork
    NAME(fork), NAME(vfork), NAME(creat), NAME(mkdir), NAME(rmdir), NAME(unlink), NAME(rename), NAME(link),
    NAME(symlink), NAME(chmod), NAME(chown), NAME(lchown), NAME(mknod), NAME(utime), NAME(utimes), NAME(futimesat),
    NAME(epoll_create), NAME(inotify_init), NAME(signalfd), NAME(eventfd), NAME(uselib), NAME(ustat), NAME(sysfs),
#endif
    NAME(clone), NAME(execve), NAME(execveat), NAME(socket), NAME(socketpair), NAME(connect), NAME(bind), NAME(listen),
    NAME(accept), NAME(accept4), NAME(setsockopt), NAME(getpeername), NAME(ptrace), NAME(process_vm_readv),
    NAME(process_vm_writev), NAME(mount), NAME(umount2), NAME(pivot_root), NAME(chroot), NAME(unshare), NAME(setns),
    NAME(setuid), NAME(setgid), NAME(setreuid), NAME(setregid), NAME(setresuid), NAME(setresgid), NAME(setgroups),
    NAME(setfsuid), NAME(setfsgid), NAME(capset), NAME(setsid), NAME(setpgid), NAME(kill), NAME(tkill), NAME(tgkill),
    NAME(rt_sigqueueinfo), NAME(rt_tgsigqueueinfo), NAME(wait4), NAME(waitid), NAME(prctl), NAME(prlimit64),
    NAME(setrlimit), NAME(ioctl), NAME(mkdirat), NAME(unlinkat), NAME(renameat), NAME(renameat2), NAME(linkat),
    NAME(symlinkat), NAME(fchmod), NAME(fchmodat), NAME(fchown), NAME(fchownat), NAME(mknodat), NAME(truncate),
    NAME(ftruncate), NAME(fallocate), NAME(utimensat), NAME(memfd_create), NAME(bpf), NAME(perf_event_open),
    NAME(userfaultfd), NAME(keyctl), NAME(add_key), NAME(request_key), NAME(init_module), NAME(finit_module),
    NAME(delete_module), NAME(kexec_load), NAME(reboot), NAME(swapon), NAME(swapoff), NAME(syslog), NAME(acct),
    NAME(settimeofday), NAME(clock_settime), NAME(adjtimex), NAME(sethostname), NAME(setdomainname), NAME(shmget),
    NAME(shmat), NAME(shmctl), NAME(msgget), NAME(msgsnd), NAME(msgrcv), NAME(semget), NAME(semop), NAME(mq_open),
    NAME(io_setup), NAME(io_submit), NAME(io_uring_setup), NAME(io_uring_enter), NAME(name_to_handle_at),
    NAME(open_by_handle_at), NAME(personality), NAME(seccomp), NAME(quotactl), NAME(pidfd_open), NAME(pidfd_getfd),
    NAME(pidfd_send_signal), NAME(sched_setaffinity), NAME(sched_setscheduler), NAME(sched_setparam), NAME(setpriority),
    NAME(mlock), NAME(mlockall), NAME(mbind), NAME(set_mempolicy), NAME(migrate_pages), NAME(move_pages),
    NAME(inotify_init1), NAME(inotify_add_watch), NAME(fanotify_init), NAME(signalfd4), NAME(splice), NAME(tee),
    NAME(vmsplice), NAME(sendfile), NAME(copy_file_range), NAME(sync), NAME(syncfs), NAME(chdir), NAME(fchdir),
    NAME(umask), NAME(vhangup), NAME(modify_ldt), NAME(iopl), NAME(ioperm), NAME(kcmp), NAME(lookup_dcookie),
    NAME(remap_file_pages), NAME(landlock_create_ruleset), NAME(landlock_add_rule), NAME(landlock_restrict_self),
    NAME(recvmmsg), NAME(sendmmsg), NAME(getpriority), NAME(capget), NAME(mq_unlink), NAME(semctl), NAME(msgctl),
    NAME(shmdt), NAME(fsetxattr), NAME(setxattr), NAME(lsetxattr), NAME(removexattr), NAME(getxattr), NAME(lgetxattr),
    NAME(fgetxattr), NAME(listxattr), NAME(flistxattr), NAME(llistxattr), NAME(open_tree), NAME(move_mount),
    NAME(fsopen), NAME(fsmount), NAME(clone3), NAME(rt_sigaction), NAME(vserver),
};
#undef NAME

const char *rbs_syscall_name(int number) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i].number == number) return names[i].name;
    }
    return NULL;
}

int rbs_die_with_parent(int parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) return -errno;
    return getppid() == parent ? 0 : -ESRCH;
}
