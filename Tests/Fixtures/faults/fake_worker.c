/*
 * A stand-in for `rbs-host worker` that faults at once: it answers the start with the ready frame recorded in the
 * file $RBS_FAKE_READY (a real worker's answer), reads the first request (create) and aborts. The host cannot tell
 * it from a real worker that crashes in create(), and it starts in a millisecond, so a loop of 1,000 injected
 * faults tests the host's reaping and descriptor handling in a second or two.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
    const char *path = getenv("RBS_FAKE_READY");
    int file = path ? open(path, O_RDONLY) : -1;
    if (file < 0) return 3;
    char frame[65536];
    ssize_t size = read(file, frame, sizeof frame);
    close(file);
    if (size <= 0 || write(3, frame, (size_t)size) != size) return 4;
    char request[4096];
    (void)read(3, request, sizeof request);
    abort();
}
