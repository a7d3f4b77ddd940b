/* The golden vectors of protocol/vectors/ (PROTOCOL.md section 10) against protocol.c:
 * messages.json decodes and re-encodes byte for byte (bot messages through this bot's own
 * encoders), malformed.json is rejected with the right code, and every frame of the
 * transcript decodes; every request of it gets a valid reply from decide().
 * The .json files are read line by line: their top-level fields sit at an indent of two. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "protocol.h"

static int failures, checks;

static char *read_file(const char *dir, const char *name, size_t *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    char *data = malloc(*len + 1);
    if (fread(data, 1, *len, f) != *len) exit(2);
    data[*len] = '\0';
    fclose(f);
    return data;
}

static void expect(int ok, const char *name, const char *what) {
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL %s: %s\n", name, what);
    }
}

static char *from_hex(const char *hex, size_t *len) {
    *len = strlen(hex) / 2;
    char *out = malloc(*len + 1);
    for (size_t i = 0; i < *len; i++) sscanf(hex + 2 * i, "%2hhx", (unsigned char *)&out[i]);
    return out;
}

static char *dup_str(const msgpack_object *o) {
    if (!o || o->type != MSGPACK_OBJECT_STR) return NULL;
    return strndup(o->via.str.ptr, o->via.str.size);
}

/* Re-encode a decoded bot message with this bot's own encoders. */
static void pack_bot_message(const msgpack_object *m, msgpack_sbuffer *buf) {
    if (proto_str_is(proto_field(m, "type"), "hello")) {
        const msgpack_object *caps = proto_field(m, "capabilities");
        const char *names[32];
        for (uint32_t i = 0; i < caps->via.array.size; i++) names[i] = dup_str(&caps->via.array.ptr[i]);
        proto_pack_hello(buf, dup_str(proto_field(m, "token")), dup_str(proto_field(m, "name")),
                         dup_str(proto_field(m, "version")), names, (int)caps->via.array.size);
        return;
    }
    proto_reply r;
    memset(&r, 0, sizeof r);
    const msgpack_object *option = proto_field(m, "option"), *action = proto_field(m, "action");
    const msgpack_object *call = proto_field(m, "call_tichu");
    r.id = (long)proto_field(m, "id")->via.u64;
    r.option = option && option->type != MSGPACK_OBJECT_NIL ? (long)option->via.u64 : -1;
    r.call_tichu = call && call->via.boolean;
    r.wish = dup_str(proto_field(m, "wish"));
    if (r.option < 0) {
        const msgpack_object *cards = proto_field(action, "cards");
        if (!cards) cards = proto_field(action, "give");
        r.action.tag = dup_str(proto_field(action, "action"));
        for (uint32_t i = 0; cards && i < cards->via.array.size; i++) r.action.cards[r.action.ncards++] = dup_str(&cards->via.array.ptr[i]);
        r.action.phoenix_as = dup_str(proto_field(action, "phoenix_as"));
        r.action.combination = dup_str(proto_field(action, "combination"));
        const msgpack_object *c = proto_field(action, "call"), *to = proto_field(action, "to");
        r.action.call = c && c->via.boolean;
        r.action.to = to ? (int)to->via.u64 : 0;
    }
    proto_pack_reply(buf, &r);
}

/* Decode `data`, re-encode it (bot messages with this bot's encoders), compare the bytes. */
static void round_trip(const char *name, const char *sender, const char *data, size_t len) {
    msgpack_unpacked m;
    proto_error err;
    msgpack_sbuffer buf;
    int bad = proto_decode(data, len, sender, &m, &err);
    expect(!bad, name, err.detail);
    if (!bad) {
        msgpack_sbuffer_init(&buf);
        if (!strcmp(sender, "bot")) {
            pack_bot_message(&m.data, &buf);
        } else {
            msgpack_packer pk;
            msgpack_packer_init(&pk, &buf, msgpack_sbuffer_write);
            msgpack_pack_object(&pk, m.data);
        }
        expect(buf.size == len && !memcmp(buf.data, data, len), name, "re-encoding differs from the golden bytes");
        msgpack_sbuffer_destroy(&buf);
    }
    msgpack_unpacked_destroy(&m);
}

static void reply_to(const char *name, const msgpack_object *request) {
    proto_reply reply;
    msgpack_sbuffer buf;
    msgpack_unpacked m;
    proto_error err;
    decide(request, &reply);
    msgpack_sbuffer_init(&buf);
    proto_pack_reply(&buf, &reply);
    expect(!proto_decode(buf.data, buf.size, "bot", &m, &err), name, "decide() built an invalid reply");
    const msgpack_object *options = proto_field(request, "options");
    if (reply.option >= 0) expect(reply.option < (long)options->via.array.size, name, "option out of range");
    msgpack_unpacked_destroy(&m);
    msgpack_sbuffer_destroy(&buf);
}

/* Each vector of a .json file: its top-level string fields, at an indent of two spaces. */
static void each_vector(const char *dir, const char *file, void (*visit)(char **fields)) {
    size_t len;
    char *text = read_file(dir, file, &len), *line = text;
    char *fields[4] = {0};  /* name, sender, hex, code */
    static const char *keys[4] = {"  \"name\": \"", "  \"sender\": \"", "  \"hex\": \"", "  \"code\": \""};
    while (line && *line) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        for (int k = 0; k < 4; k++) {
            if (!strncmp(line, keys[k], strlen(keys[k]))) {
                fields[k] = line + strlen(keys[k]);
                *strrchr(fields[k], '"') = '\0';
            }
        }
        if (!strcmp(line, " },") || !strcmp(line, " }")) {
            visit(fields);
            memset(fields, 0, sizeof fields);
        }
        line = end ? end + 1 : NULL;
    }
}

static void visit_message(char **f) {
    size_t len;
    char *data = from_hex(f[2], &len);
    round_trip(f[0], f[1], data, len);
}

static void visit_malformed(char **f) {
    size_t len;
    char *data = from_hex(f[2], &len);
    msgpack_unpacked m;
    proto_error err;
    char what[128];
    int bad = proto_decode(data, len, f[1], &m, &err);
    snprintf(what, sizeof what, "expected %s, got %s", f[3], bad ? err.code : "accepted");
    expect(bad && !strcmp(err.code, f[3]), f[0], what);
    msgpack_unpacked_destroy(&m);
}

static void transcript(const char *dir) {
    size_t blen, jlen, pos = 0;
    unsigned char *bin = (unsigned char *)read_file(dir, "transcript.bin", &blen);
    char *lines = read_file(dir, "transcript.jsonl", &jlen), *line = lines;
    int n = 0;
    while (pos < blen) {
        size_t len = (size_t)bin[pos] << 24 | bin[pos + 1] << 16 | bin[pos + 2] << 8 | bin[pos + 3];
        const char *from = strstr(line, "\"from\":") + 7;
        while (*from == ' ') from++;
        const char *sender = !strncmp(from, "\"bot\"", 5) ? "bot" : "referee";
        char name[64];
        snprintf(name, sizeof name, "transcript message %d", n++);
        round_trip(name, sender, (const char *)bin + pos + 4, len);
        msgpack_unpacked m;
        proto_error err;
        if (!proto_decode((const char *)bin + pos + 4, len, sender, &m, &err) && proto_str_is(proto_field(&m.data, "type"), "request"))
            reply_to(name, &m.data);
        msgpack_unpacked_destroy(&m);
        pos += 4 + len;
        line = strchr(line, '\n') + 1;
    }
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "../../protocol/vectors";
    each_vector(dir, "messages.json", visit_message);
    each_vector(dir, "malformed.json", visit_malformed);
    transcript(dir);
    printf("%d of %d checks passed\n", checks - failures, checks);
    return failures ? 1 : 0;
}
