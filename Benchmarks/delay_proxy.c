/*
 * A TCP proxy that delays every byte by a fixed time each way: a round trip inside one data centre, on loopback.
 *
 * Usage: delay_proxy --listen PORT --to HOST:PORT [--delay-ms 1]
 * Prints `listening PORT` once it accepts connections. Each chunk read from one side is written to the other side
 * `--delay-ms` after it was read, in order (a fixed one-way delay, not a rate limit: bandwidth is not reduced), so a
 * request and its answer take twice the delay longer than without the proxy. Used by Benchmarks/postgres_bench.py
 * (make bench-pg), which compiles it, for both the hosts and pgbench.
 *
 * In C, one thread a connection: it polls both sockets, reads what arrives into a queue for the other side, and
 * sleeps in the same poll until the first queued chunk is due, then writes it (non-blocking: a side that takes no
 * more bytes is polled for room, never waited on while the other way has bytes to move). So a chunk costs the
 * proxy two wake-ups, one when it arrives and one when it is due. The proxy shares the 2 cores with the hosts and
 * the server it stands between: what it spends there is a cost a real network's delay does not put on them. (The
 * asyncio proxy it replaced spent ~0.6 ms of CPU a payment, make bench-pg 2026-11-27; the C proxy before this one,
 * a reader and a writer thread each way handing chunks over by a condition variable, three wake-ups a chunk.)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct chunk {
    struct chunk *next;
    int64_t due; /* CLOCK_MONOTONIC, nanoseconds */
    size_t length, written;
    char bytes[];
};

/* One direction: bytes read from `from` are written to `to` `delay` later. */
struct direction {
    int from, to;
    struct chunk *head, *tail;
    int ended;     /* `from` said end of file (or failed): no more reads */
    int finished;  /* everything before the end written and `to` shut for writing */
};

struct connection {
    struct direction ways[2];
};

static int64_t delay_ns;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Reads what `d->from` has into a new chunk; at end of file or a failure, marks the direction ended. */
static void take(struct direction *d) {
    char buffer[65536];
    ssize_t n = read(d->from, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
        d->ended = 1;
        return;
    }
    struct chunk *chunk = malloc(sizeof *chunk + (size_t)n);
    if (!chunk) {
        d->ended = 1;
        return;
    }
    chunk->due = now_ns() + delay_ns;
    chunk->next = NULL;
    chunk->length = (size_t)n;
    chunk->written = 0;
    memcpy(chunk->bytes, buffer, (size_t)n);
    if (d->tail) d->tail->next = chunk; else d->head = chunk;
    d->tail = chunk;
}

/* Writes the chunks that are due, as far as `d->to` takes them. Returns 0, or -1 when `d->to` failed. */
static int deliver(struct direction *d, int64_t now) {
    while (d->head && d->head->due <= now) {
        struct chunk *chunk = d->head;
        ssize_t n = write(d->to, chunk->bytes + chunk->written, chunk->length - chunk->written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        if (n <= 0) return -1;
        chunk->written += (size_t)n;
        if (chunk->written < chunk->length) return 0;
        d->head = chunk->next;
        if (!d->head) d->tail = NULL;
        free(chunk);
    }
    /* The other side's end, delivered after the bytes before it. */
    if (d->ended && !d->head && !d->finished) {
        shutdown(d->to, SHUT_WR);
        d->finished = 1;
    }
    return 0;
}

static void discard(struct direction *d) {
    while (d->head) {
        struct chunk *next = d->head->next;
        free(d->head);
        d->head = next;
    }
    d->tail = NULL;
}

static void *relay(void *argument) {
    struct connection *c = argument;
    int failed = 0;
    while (!failed && !(c->ways[0].finished && c->ways[1].finished)) {
        struct pollfd fds[4];
        struct direction *of[4];
        int count = 0;
        int64_t now = now_ns(), wait = -1;
        for (int i = 0; i < 2; i++) {
            struct direction *d = &c->ways[i];
            if (!d->ended) {
                fds[count] = (struct pollfd){.fd = d->from, .events = POLLIN};
                of[count++] = d;
            }
            if (d->head) {
                if (d->head->due <= now) {
                    /* Due but not taken whole: wait for room. */
                    fds[count] = (struct pollfd){.fd = d->to, .events = POLLOUT};
                    of[count++] = d;
                } else {
                    int64_t left = d->head->due - now;
                    if (wait < 0 || left < wait) wait = left;
                }
            }
        }
        /* poll's timeout is in milliseconds: ppoll takes the exact time to the first due chunk. */
        struct timespec timeout = {.tv_sec = wait / 1000000000LL, .tv_nsec = wait % 1000000000LL};
        int ready = ppoll(fds, (nfds_t)count, wait < 0 ? NULL : &timeout, NULL);
        if (ready < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int k = 0; k < count; k++) {
            if (fds[k].revents == 0) continue;
            if (fds[k].events & POLLIN) take(of[k]);
        }
        now = now_ns();
        for (int i = 0; i < 2; i++) {
            if (deliver(&c->ways[i], now) != 0) failed = 1;
        }
    }
    /* A failed side stops both ways. */
    for (int i = 0; i < 2; i++) discard(&c->ways[i]);
    close(c->ways[0].from);
    close(c->ways[0].to);
    free(c);
    return NULL;
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
    delay_ns = (int64_t)(delay_ms * 1e6);
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
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 256 * 1024);
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
        fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK);
        fcntl(server, F_SETFL, fcntl(server, F_GETFL) | O_NONBLOCK);
        struct connection *connection = calloc(1, sizeof *connection);
        if (!connection) { close(client); close(server); continue; }
        connection->ways[0] = (struct direction){.from = client, .to = server};
        connection->ways[1] = (struct direction){.from = server, .to = client};
        pthread_t thread;
        if (pthread_create(&thread, &attributes, relay, connection) != 0) {
            perror("delay_proxy: pthread_create");
            close(client);
            close(server);
            free(connection);
        }
    }
}
