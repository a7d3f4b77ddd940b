/* The Tichu Arena wire protocol (protocol/PROTOCOL.md, version 1) for C bots:
 * strict decoding and validation with msgpack-c, canonical encoding of hello and reply. */
#ifndef TICHU_PROTOCOL_H
#define TICHU_PROTOCOL_H

#include <msgpack.h>
#include <stddef.h>

#define MAX_MESSAGE_BYTES (1 << 20)

/* Why a frame was rejected: `code` is one of PROTOCOL.md section 10's fault kinds. */
typedef struct {
    char code[32];
    char detail[256];
} proto_error;

/* Decode one frame sent by `sender` ("bot" or "referee") into `out` (caller destroys it
 * with msgpack_unpacked_destroy) and validate it; 0 if valid, -1 with `err` set if not. */
int proto_decode(const char *data, size_t len, const char *sender, msgpack_unpacked *out,
                 proto_error *err);

/* The value of field `key` of map `map`, or NULL if absent (or `map` is not a map). */
const msgpack_object *proto_field(const msgpack_object *map, const char *key);

/* Whether `obj` is the string `s`. */
int proto_str_is(const msgpack_object *obj, const char *s);

/* A reply (PROTOCOL.md 5.5). `option` < 0 means nil: then `action` is stated. */
typedef struct {
    const char *tag;          /* "pass", "play", "exchange", "grand_tichu", "tichu", "give_dragon" */
    const char *cards[14];    /* play: cards; exchange: give[0..2] */
    int ncards;
    const char *phoenix_as;   /* play only; NULL: nil */
    const char *combination;  /* play only; NULL: nil */
    int call;                 /* grand_tichu, tichu */
    int to;                   /* give_dragon */
} proto_action;

typedef struct {
    long id;
    long option;
    proto_action action;
    int call_tichu;
    const char *wish;         /* NULL: nil */
} proto_reply;

/* Canonical encodings (keys in PROTOCOL.md order, every field present, shortest forms). */
void proto_pack_hello(msgpack_sbuffer *buf, const char *token, const char *name,
                      const char *version, const char *const *caps, int ncaps);
void proto_pack_reply(msgpack_sbuffer *buf, const proto_reply *reply);

#endif
