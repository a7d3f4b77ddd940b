/* __NAME__: a Tichu Arena bot in C with libzmq and msgpack-c (see protocol/PROTOCOL.md).
 * Change decide(). Build: make (needs libzmq3-dev and libmsgpack-dev). It compiles as C++ too. */
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

static int is(const msgpack_object *o, const char *s) {
    return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size == strlen(s) && !memcmp(o->via.str.ptr, s, strlen(s));
}

static const msgpack_object *field(const msgpack_object *map, const char *key) {
    for (uint32_t i = 0; map && map->type == MSGPACK_OBJECT_MAP && i < map->via.map.size; i++)
        if (is(&map->via.map.ptr[i].key, key)) return &map->via.map.ptr[i].val;
    return NULL;
}

static void str(msgpack_packer *pk, const char *s, size_t n) {
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}
#define KEY(pk, s) str(pk, s, strlen(s))

/* The reply to one request: the first three cards to exchange, a random option otherwise. */
static void decide(const msgpack_object *request, msgpack_packer *pk) {
    const msgpack_object *kind = field(request, "kind");
    msgpack_pack_map(pk, 6);
    KEY(pk, "type"), KEY(pk, "reply");
    KEY(pk, "id"), msgpack_pack_uint64(pk, field(request, "id")->via.u64);
    KEY(pk, "option");
    if (is(kind, "exchange")) {
        const msgpack_object *hand = field(field(request, "observation"), "hand");
        msgpack_pack_nil(pk);
        KEY(pk, "action"), msgpack_pack_map(pk, 2);
        KEY(pk, "action"), KEY(pk, "exchange");
        KEY(pk, "give"), msgpack_pack_array(pk, 3);
        for (int i = 0; i < 3; i++) str(pk, hand->via.array.ptr[i].via.str.ptr, hand->via.array.ptr[i].via.str.size);
    } else {
        int n = (int)field(request, "options")->via.array.size;
        msgpack_pack_int(pk, is(kind, "grand_tichu") || is(kind, "tichu") ? 0 : rand() % n);
        KEY(pk, "action"), msgpack_pack_nil(pk);
    }
    KEY(pk, "call_tichu"), msgpack_pack_false(pk);
    KEY(pk, "wish"), msgpack_pack_nil(pk);
}

int main(void) {
    void *ctx = zmq_ctx_new(), *socket = zmq_socket(ctx, ZMQ_DEALER);
    int linger = 1000, done = 0;
    const char *token = getenv("TICHU_TOKEN");
    msgpack_sbuffer buf;
    msgpack_packer pk;
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    zmq_connect(socket, getenv("TICHU_ENDPOINT"));
    msgpack_sbuffer_init(&buf);
    msgpack_packer_init(&pk, &buf, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 6);
    KEY(&pk, "type"), KEY(&pk, "hello");
    KEY(&pk, "protocol"), msgpack_pack_int(&pk, 1);
    KEY(&pk, "token"), KEY(&pk, token);
    KEY(&pk, "name"), KEY(&pk, "__NAME__");
    KEY(&pk, "version"), KEY(&pk, "0.1.0");
    KEY(&pk, "capabilities"), msgpack_pack_array(&pk, 0);
    zmq_send(socket, buf.data, buf.size, 0);
    while (!done) {
        zmq_msg_t frame;
        msgpack_unpacked message;
        zmq_msg_init(&frame);
        if (zmq_msg_recv(&frame, socket, 0) < 0) break;
        msgpack_unpacked_init(&message);
        msgpack_unpack_next(&message, (const char *)zmq_msg_data(&frame), zmq_msg_size(&frame), NULL);
        const msgpack_object *type = field(&message.data, "type");
        if (is(type, "request")) {
            msgpack_sbuffer_clear(&buf);
            decide(&message.data, &pk);
            zmq_send(socket, buf.data, buf.size, 0);
        }
        done = is(type, "end") || is(type, "reject") || is(type, "error");
        msgpack_unpacked_destroy(&message);
        zmq_msg_close(&frame);
    }
    msgpack_sbuffer_destroy(&buf);
    zmq_close(socket);
    zmq_ctx_term(ctx);
    return 0;
}
