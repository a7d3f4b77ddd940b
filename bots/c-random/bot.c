/* c-random: a Tichu Arena bot in C (libzmq, msgpack-c), written from PROTOCOL.md alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "decide.h"
#include "protocol.h"

static int send_buffer(void *socket, msgpack_sbuffer *buf) {
    int rc = zmq_send(socket, buf->data, buf->size, 0);
    msgpack_sbuffer_clear(buf);
    return rc < 0 ? -1 : 0;
}

/* Answer requests until the session ends; the process exit status. */
static int session(void *socket, msgpack_sbuffer *buf) {
    for (;;) {
        zmq_msg_t frame;
        msgpack_unpacked message;
        proto_error err;
        zmq_msg_init(&frame);
        if (zmq_msg_recv(&frame, socket, 0) < 0) {
            fprintf(stderr, "c-random: receive failed: %s\n", zmq_strerror(zmq_errno()));
            return 1;
        }
        /* msgpack-c strings point into the frame: keep it until the message is done with */
        int bad = proto_decode(zmq_msg_data(&frame), zmq_msg_size(&frame), "referee", &message, &err);
        if (bad) {
            fprintf(stderr, "c-random: bad message from the referee: %s\n", err.detail);
            msgpack_unpacked_destroy(&message);
            zmq_msg_close(&frame);
            return 1;
        }
        const msgpack_object *m = &message.data, *type = proto_field(m, "type");
        int status = -1;
        if (proto_str_is(type, "request")) {
            proto_reply reply;
            decide(m, &reply);
            proto_pack_reply(buf, &reply);
            if (send_buffer(socket, buf)) status = 1;
        } else if (proto_str_is(type, "end")) {
            const msgpack_object *more = proto_field(m, "more_games");
            if (!more || !more->via.boolean) status = 0;
        } else if (proto_str_is(type, "reject") || proto_str_is(type, "error")) {
            const msgpack_object *text = proto_field(m, "message");
            fprintf(stderr, "c-random: %.*s: %.*s\n", (int)type->via.str.size, type->via.str.ptr,
                    (int)text->via.str.size, text->via.str.ptr);
            status = 1;
        }
        msgpack_unpacked_destroy(&message);
        zmq_msg_close(&frame);
        if (status >= 0) return status;
    }
}

int main(void) {
    const char *endpoint = getenv("TICHU_ENDPOINT"), *token = getenv("TICHU_TOKEN");
    static const char *const caps[] = {"multi_game", "auto_pass"};
    if (!endpoint || !token) {
        fprintf(stderr, "c-random: TICHU_ENDPOINT and TICHU_TOKEN must be set (the referee starts this bot)\n");
        return 2;
    }
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_DEALER);
    int linger = 1000;
    int64_t max_size = MAX_MESSAGE_BYTES;
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size);
    int status = 1;
    if (zmq_connect(socket, endpoint) == 0) {
        msgpack_sbuffer buf;
        msgpack_sbuffer_init(&buf);
        proto_pack_hello(&buf, token, "c-random", "1.0.0", caps, 2);
        status = send_buffer(socket, &buf) ? 1 : session(socket, &buf);
        msgpack_sbuffer_destroy(&buf);
    } else {
        fprintf(stderr, "c-random: cannot connect to %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
    }
    zmq_close(socket);
    zmq_ctx_term(context);
    return status;
}
