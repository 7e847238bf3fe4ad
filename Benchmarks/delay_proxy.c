/*
 * A TCP proxy that delays every byte by a fixed time each way: a round trip inside one data centre, on loopback.
 *
 * Usage: delay_proxy --listen PORT --to HOST:PORT [--delay-ms 1]
 * Prints `listening PORT` once it accepts connections. Each chunk read from one side is written to the other side
 * `--delay-ms` after it was read, in order (a fixed one-way delay, not a rate limit: bandwidth is not reduced), so a
 * request and its answer take twice the delay longer than without the proxy. Used by Benchmarks/postgres_bench.py
 * (make bench-pg), which compiles it, for both the hosts and pgbench.
 *
 * In C, with a reader and a writer thread for each direction of each connection (a blocking read, then a sleep to
 * the chunk's due time and a blocking write): the proxy shares the 2 cores with the hosts and the server it stands
 * between, and the asyncio proxy it replaces spent ~0.6 ms of CPU a payment there (make bench-pg, 2026-11-27), a
 * cost a real network's delay does not put on these cores.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct chunk {
    struct chunk *next;
    struct timespec due;
    size_t length;
    char bytes[];
};

struct connection;

/* One direction: bytes read from `from` are written to `to` `delay` later. */
struct direction {
    int from, to;
    pthread_mutex_t lock;
    pthread_cond_t ready;
    struct chunk *head, *tail;
    int ended;
    struct connection *connection;
};

struct connection {
    struct direction up, down;
    atomic_int open_threads;
};

static struct timespec delay;

static void finish(struct connection *connection) {
    if (atomic_fetch_sub(&connection->open_threads, 1) == 1) {
        close(connection->up.from);
        close(connection->up.to);
        free(connection);
    }
}

static void *reader(void *argument) {
    struct direction *d = argument;
    char buffer[65536];
    for (;;) {
        ssize_t n = read(d->from, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        struct chunk *chunk = NULL;
        if (n > 0) {
            chunk = malloc(sizeof *chunk + (size_t)n);
            if (!chunk) n = 0;
        }
        if (chunk) {
            clock_gettime(CLOCK_MONOTONIC, &chunk->due);
            chunk->due.tv_sec += delay.tv_sec;
            chunk->due.tv_nsec += delay.tv_nsec;
            if (chunk->due.tv_nsec >= 1000000000L) { chunk->due.tv_sec += 1; chunk->due.tv_nsec -= 1000000000L; }
            chunk->next = NULL;
            chunk->length = (size_t)n;
            memcpy(chunk->bytes, buffer, (size_t)n);
        }
        pthread_mutex_lock(&d->lock);
        if (chunk) {
            if (d->tail) d->tail->next = chunk; else d->head = chunk;
            d->tail = chunk;
        } else {
            d->ended = 1;
        }
        pthread_cond_signal(&d->ready);
        pthread_mutex_unlock(&d->lock);
        if (!chunk) break;
    }
    finish(d->connection);
    return NULL;
}

static void *writer(void *argument) {
    struct direction *d = argument;
    int failed = 0;
    for (;;) {
        pthread_mutex_lock(&d->lock);
        while (!d->head && !d->ended) pthread_cond_wait(&d->ready, &d->lock);
        struct chunk *chunk = d->head;
        if (chunk) {
            d->head = chunk->next;
            if (!d->head) d->tail = NULL;
        }
        pthread_mutex_unlock(&d->lock);
        if (!chunk) break;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &chunk->due, NULL) == EINTR) {}
        size_t done = 0;
        while (!failed && done < chunk->length) {
            ssize_t n = write(d->to, chunk->bytes + done, chunk->length - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) { failed = 1; break; }
            done += (size_t)n;
        }
        free(chunk);
    }
    /* The other side's end, delivered after the bytes before it; a failed side stops both ways. */
    shutdown(d->to, SHUT_WR);
    if (failed) shutdown(d->from, SHUT_RD);
    finish(d->connection);
    return NULL;
}

static void start(struct direction *d, int from, int to, struct connection *connection) {
    d->from = from;
    d->to = to;
    d->head = d->tail = NULL;
    d->ended = 0;
    d->connection = connection;
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->ready, NULL);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    pthread_t thread;
    if (pthread_create(&thread, &attributes, reader, d) != 0 || pthread_create(&thread, &attributes, writer, d) != 0) {
        perror("delay_proxy: pthread_create");
        exit(1);
    }
    pthread_attr_destroy(&attributes);
}

static int connect_to(const char *host, const char *port) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *found;
    if (getaddrinfo(host, port, &hints, &found) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *a = found; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(found);
    return fd;
}

int main(int argc, char **argv) {
    int listen_port = 0;
    char *to = NULL;
    double delay_ms = 1.0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--listen") == 0) listen_port = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--to") == 0) to = argv[i + 1];
        else if (strcmp(argv[i], "--delay-ms") == 0) delay_ms = atof(argv[i + 1]);
        else { fprintf(stderr, "delay_proxy: unknown option %s\n", argv[i]); return 2; }
    }
    char *colon = to ? strrchr(to, ':') : NULL;
    if (listen_port <= 0 || !colon || delay_ms < 0) {
        fprintf(stderr, "usage: delay_proxy --listen PORT --to HOST:PORT [--delay-ms 1]\n");
        return 2;
    }
    *colon = '\0';
    const char *host = to, *port = colon + 1;
    long long nanoseconds = (long long)(delay_ms * 1e6);
    delay.tv_sec = nanoseconds / 1000000000LL;
    delay.tv_nsec = nanoseconds % 1000000000LL;
    signal(SIGPIPE, SIG_IGN);

    int listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)listen_port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 128) != 0) {
        fprintf(stderr, "delay_proxy: cannot listen on 127.0.0.1:%d: %s\n", listen_port, strerror(errno));
        return 1;
    }
    printf("listening %d\n", listen_port);
    fflush(stdout);
    for (;;) {
        int client = accept(listener, NULL, NULL);
        if (client < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            perror("delay_proxy: accept");
            return 1;
        }
        int server = connect_to(host, port);
        if (server < 0) {
            close(client);
            continue;
        }
        setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct connection *connection = calloc(1, sizeof *connection);
        if (!connection) { close(client); close(server); continue; }
        atomic_init(&connection->open_threads, 4);
        start(&connection->up, client, server, connection);
        start(&connection->down, server, client, connection);
    }
}
