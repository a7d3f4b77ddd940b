/* The referee's connection into a sandbox, as handoff.py makes it, without a Python start.

   Usage, inside the sandbox as the bot's user: handoff FD PORT -- COMMAND...
   Listens on 127.0.0.1:PORT, sends the listening socket to the referee over FD (SCM_RIGHTS,
   with the tag "listener"), closes FD and execs COMMAND (looked up on PATH) with
   TICHU_ENDPOINT=tcp://127.0.0.1:PORT. Exit status 126 (127: COMMAND not found) if COMMAND
   cannot be started, 2 for bad arguments, 1 if the listener cannot be made or sent.

   handoff.py compiles it once per machine (`compiled`), and jail.py runs it where it could
   be; it is handoff.py's twin (the same steps, in the same order), which runs where no C
   compiler is: a Python start costs 9 ms of CPU, this program's a tenth of that, and each
   bot of each game pays it. */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define TAG "listener"
#define ENDPOINT_VAR "TICHU_ENDPOINT"

static long number(const char *text, long low, long high) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || *text == '\0' || *end != '\0' || value < low || value > high)
        return -1;
    return value;
}

int main(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fprintf(stderr, "usage: handoff FD PORT -- COMMAND...\n");
        return 2;
    }
    long fd = number(argv[1], 0, 1 << 20), port = number(argv[2], 1, 65535);
    if (fd < 0 || port < 0) {
        fprintf(stderr, "handoff: bad FD or PORT\n");
        return 2;
    }

    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0
            || bind(listener, (struct sockaddr *)&address, sizeof address) < 0
            || listen(listener, 64) < 0) {
        perror("sandbox: cannot listen for the referee");
        return 1;
    }

    char tag[] = TAG;
    struct iovec part = {.iov_base = tag, .iov_len = sizeof TAG - 1};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1,
                             .msg_control = control.buffer, .msg_controllen = sizeof control.buffer};
    struct cmsghdr *rights = CMSG_FIRSTHDR(&message);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(rights), &listener, sizeof(int));
    if (sendmsg((int)fd, &message, 0) < 0) {
        perror("sandbox: cannot hand the listener to the referee");
        return 1;
    }
    close((int)fd);
    close(listener); /* the referee holds it now */

    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "tcp://127.0.0.1:%ld", port);
    if (setenv(ENDPOINT_VAR, endpoint, 1) < 0) {
        perror("sandbox: setenv");
        return 1;
    }
    execvp(argv[4], argv + 4);
    int error = errno;
    fprintf(stderr, "sandbox: cannot start %s: %s\n", argv[4], strerror(error));
    return error == ENOENT ? 127 : 126;
}
