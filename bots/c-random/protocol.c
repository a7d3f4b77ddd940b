/* Validation follows the field tables of PROTOCOL.md, written down in schema.txt (one line
 * per map: "name: field=spec, optional?=spec"); see spec_check for the spec language. */
#include "protocol.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SCHEMA_TEXT[] =
#include "schema.h"
    ;

#define MAX_RECORDS 48
#define MAX_FIELDS 20
#define INT32 2147483647LL

typedef struct { char key[32]; char spec[160]; int optional; } field_def;
typedef struct { char name[40]; field_def fields[MAX_FIELDS]; int nfields; } record_def;

static record_def records[MAX_RECORDS];
static int nrecords;

static const char RANKS[] = "23456789TJQKA";
static const char SUITS[] = "jspt";

static void load_schema(void) {
    const char *line = SCHEMA_TEXT;
    while (*line && nrecords < MAX_RECORDS) {
        const char *end = strchr(line, '\n');
        record_def *r = &records[nrecords++];
        const char *colon = strstr(line, ": ");
        snprintf(r->name, sizeof r->name, "%.*s", (int)(colon - line), line);
        const char *p = colon + 2;
        while (p < end) {
            const char *sep = strstr(p, ", ");
            if (!sep || sep > end) sep = end;
            const char *eq = memchr(p, '=', sep - p);
            field_def *f = &r->fields[r->nfields++];
            int klen = (int)(eq - p);
            f->optional = eq[-1] == '?';
            snprintf(f->key, sizeof f->key, "%.*s", klen - f->optional, p);
            snprintf(f->spec, sizeof f->spec, "%.*s", (int)(sep - eq - 1), eq + 1);
            p = sep == end ? end : sep + 2;
        }
        line = end + 1;
    }
}

static const record_def *find_record(const char *name) {
    if (!nrecords) load_schema();
    for (int i = 0; i < nrecords; i++)
        if (!strcmp(records[i].name, name)) return &records[i];
    return NULL;
}

static int fail(proto_error *err, const char *code, const char *where, const char *fmt, ...) {
    va_list ap;
    char detail[200];
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    snprintf(err->code, sizeof err->code, "%s", code);
    snprintf(err->detail, sizeof err->detail, "%s at %s: %s", code, *where ? where : "<message>", detail);
    return -1;
}

static const char *type_name(const msgpack_object *o) {
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: return "nil";
    case MSGPACK_OBJECT_BOOLEAN: return "boolean";
    case MSGPACK_OBJECT_POSITIVE_INTEGER: case MSGPACK_OBJECT_NEGATIVE_INTEGER: return "integer";
    case MSGPACK_OBJECT_STR: return "string";
    case MSGPACK_OBJECT_ARRAY: return "array";
    case MSGPACK_OBJECT_MAP: return "map";
    default: return "float, bin or ext";
    }
}

static int wrong(proto_error *err, const char *where, const msgpack_object *o, const char *expected) {
    return fail(err, "wrong_type", where, "expected %s, got %s", expected, type_name(o));
}

int proto_str_is(const msgpack_object *o, const char *s) {
    return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size == strlen(s)
        && !memcmp(o->via.str.ptr, s, o->via.str.size);
}

const msgpack_object *proto_field(const msgpack_object *map, const char *key) {
    if (!map || map->type != MSGPACK_OBJECT_MAP) return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++)
        if (proto_str_is(&map->via.map.ptr[i].key, key)) return &map->via.map.ptr[i].val;
    return NULL;
}

static int card_id(const msgpack_object *o) {
    static const char *specials[] = {"Mahjong", "Dog", "Phoenix", "Dragon"};
    if (o->type != MSGPACK_OBJECT_STR) return -1;
    for (int i = 0; i < 4; i++)
        if (proto_str_is(o, specials[i])) return 52 + i;
    if (o->via.str.size != 2) return -1;
    const char *r = memchr(RANKS, o->via.str.ptr[0], 13), *s = memchr(SUITS, o->via.str.ptr[1], 4);
    return r && s ? (int)(r - RANKS) * 4 + (int)(s - SUITS) : -1;
}

/* Whether the string `o` is one of the '|'-separated `choices`. */
static int in_choices(const msgpack_object *o, const char *choices) {
    size_t n = o->via.str.size;
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !memcmp(p, o->via.str.ptr, n)) return 1;
        if (!bar) break;
        p = bar + 1;
    }
    return 0;
}

static size_t utf8_length(const msgpack_object *o) {
    size_t n = 0;
    for (uint32_t i = 0; i < o->via.str.size; i++) n += ((unsigned char)o->via.str.ptr[i] & 0xc0) != 0x80;
    return n;
}

static int check(const msgpack_object *o, const char *spec, const char *where, proto_error *err);
static int check_record(const msgpack_object *o, const char *name, const char *where, proto_error *err);

static int check_int(const msgpack_object *o, const char *spec, const char *where, proto_error *err) {
    long long lo = -INT32, hi = INT32, v;
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) v = o->via.u64 > (uint64_t)INT32 ? INT32 + 1 : (long long)o->via.u64;
    else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) v = o->via.i64;
    else return wrong(err, where, o, "integer");
    if (spec[1] == ':') sscanf(spec + 2, "%lld:%lld", &lo, &hi);
    if (v < lo || v > hi) return fail(err, "bad_value", where, "%lld is outside %lld..%lld", v, lo, hi);
    return 0;
}

static int check_array(const msgpack_object *o, const char *spec, const char *where, proto_error *err) {
    int lo = 0, hi = 0;
    char at[256];
    sscanf(spec, "[%d:%d]", &lo, &hi);
    const char *inner = strchr(spec, ']') + 1;
    if (o->type != MSGPACK_OBJECT_ARRAY) return wrong(err, where, o, "array");
    if ((int)o->via.array.size < lo || (int)o->via.array.size > hi)
        return fail(err, "bad_value", where, "%u items, expected %d..%d", o->via.array.size, lo, hi);
    for (uint32_t i = 0; i < o->via.array.size; i++) {
        snprintf(at, sizeof at, "%s[%u]", where, i);
        if (check(&o->via.array.ptr[i], inner, at, err)) return -1;
    }
    return 0;
}

static int check_cards(const msgpack_object *o, const char *spec, const char *where, proto_error *err) {
    char array_spec[32];
    int lo, hi;
    unsigned long long seen = 0;
    sscanf(spec, "C:%d:%d", &lo, &hi);
    snprintf(array_spec, sizeof array_spec, "[%d:%d]c", lo, hi);
    if (check_array(o, array_spec, where, err)) return -1;
    for (uint32_t i = 0; i < o->via.array.size; i++) {
        int id = card_id(&o->via.array.ptr[i]);
        if (seen >> id & 1) return fail(err, "bad_value", where, "a card is listed twice");
        seen |= 1ULL << id;
    }
    return 0;
}

static int check_tagged(const msgpack_object *o, const char *family, const char *where, proto_error *err) {
    const char *tag = strcmp(family, "action") ? "kind" : "action";
    char at[256], name[64], kinds[256] = "";
    if (o->type != MSGPACK_OBJECT_MAP) return wrong(err, where, o, "map");
    snprintf(at, sizeof at, "%s%s%s", where, *where ? "." : "", tag);
    const msgpack_object *t = proto_field(o, tag);
    if (!t) return fail(err, "missing_field", at, "a map needs field '%s'", tag);
    if (t->type != MSGPACK_OBJECT_STR) return wrong(err, at, t, "string");
    snprintf(name, sizeof name, "%s.%.*s", family, (int)t->via.str.size, t->via.str.ptr);
    if (!find_record(name)) {
        for (int i = 0; i < nrecords; i++)
            if (!strncmp(records[i].name, family, strlen(family)) && records[i].name[strlen(family)] == '.')
                snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), " %s", records[i].name + strlen(family) + 1);
        return fail(err, "unknown_kind", at, "'%.*s' is not one of%s", (int)t->via.str.size, t->via.str.ptr, kinds);
    }
    return check_record(o, name, where, err);
}

/* Specs: i[:lo:hi] integer, b boolean, s:lo:hi string length, e:a|b enum (k: unknown_kind),
 * r rank, c card, C:lo:hi card set, [lo:hi]X array, ?X nullable, @name map, <family union,
 * t the union's own tag. */
static int check(const msgpack_object *o, const char *spec, const char *where, proto_error *err) {
    switch (spec[0]) {
    case '?': return o->type == MSGPACK_OBJECT_NIL ? 0 : check(o, spec + 1, where, err);
    case '[': return check_array(o, spec, where, err);
    case '@': return check_record(o, spec + 1, where, err);
    case '<': return check_tagged(o, spec + 1, where, err);
    case 'i': return check_int(o, spec, where, err);
    case 'b': return o->type == MSGPACK_OBJECT_BOOLEAN ? 0 : wrong(err, where, o, "boolean");
    case 't': return 0;
    case 'C': return check_cards(o, spec, where, err);
    }
    if (o->type != MSGPACK_OBJECT_STR) return wrong(err, where, o, "string");
    if (spec[0] == 's') {
        size_t lo = 0, hi = 0, n = utf8_length(o);
        sscanf(spec, "s:%zu:%zu", &lo, &hi);
        return n < lo || n > hi ? fail(err, "bad_value", where, "length %zu is outside %zu..%zu", n, lo, hi) : 0;
    }
    if (spec[0] == 'c')
        return card_id(o) < 0 ? fail(err, "bad_value", where, "'%.*s' is not a card name", (int)o->via.str.size, o->via.str.ptr) : 0;
    const char *choices = spec[0] == 'r' ? "2|3|4|5|6|7|8|9|T|J|Q|K|A" : spec + 2;
    if (!in_choices(o, choices))
        return fail(err, spec[0] == 'k' ? "unknown_kind" : "bad_value", where, "'%.*s' is not one of %s",
                    (int)o->via.str.size, o->via.str.ptr, choices);
    return 0;
}

static int check_record(const msgpack_object *o, const char *name, const char *where, proto_error *err) {
    const record_def *r = find_record(name);
    char at[256];
    const char *base = *where ? where : name;
    if (o->type != MSGPACK_OBJECT_MAP) return wrong(err, base, o, "map");
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object *k = &o->via.map.ptr[i].key;
        int known = 0;
        for (int f = 0; f < r->nfields && !known; f++) known = proto_str_is(k, r->fields[f].key);
        if (!known)
            return fail(err, "unknown_field", base, "%s has no field '%.*s'", name, (int)k->via.str.size, k->via.str.ptr);
    }
    for (int f = 0; f < r->nfields; f++) {
        const msgpack_object *v = proto_field(o, r->fields[f].key);
        snprintf(at, sizeof at, "%s.%s", base, r->fields[f].key);
        if (v && check(v, r->fields[f].spec, at, err)) return -1;
        if (!v && !r->fields[f].optional) return fail(err, "missing_field", at, "%s needs field '%s'", name, r->fields[f].key);
    }
    return 0;
}

/* Rules the decoded tree hides from check(): map keys are distinct strings; no float, bin or ext. */
static int check_values(const msgpack_object *o, proto_error *err) {
    if (o->type == MSGPACK_OBJECT_ARRAY) {
        for (uint32_t i = 0; i < o->via.array.size; i++)
            if (check_values(&o->via.array.ptr[i], err)) return -1;
    } else if (o->type == MSGPACK_OBJECT_MAP) {
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object *k = &o->via.map.ptr[i].key;
            if (k->type != MSGPACK_OBJECT_STR) return wrong(err, "", k, "string map key");
            for (uint32_t j = 0; j < i; j++) {
                const msgpack_object *prev = &o->via.map.ptr[j].key;
                if (prev->via.str.size == k->via.str.size && !memcmp(prev->via.str.ptr, k->via.str.ptr, k->via.str.size))
                    return fail(err, "duplicate_field", "", "the key '%.*s' is repeated", (int)k->via.str.size, k->via.str.ptr);
            }
            if (check_values(&o->via.map.ptr[i].val, err)) return -1;
        }
    } else if (o->type != MSGPACK_OBJECT_NIL && o->type != MSGPACK_OBJECT_BOOLEAN && o->type != MSGPACK_OBJECT_STR
               && o->type != MSGPACK_OBJECT_POSITIVE_INTEGER && o->type != MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        return wrong(err, "", o, "nil, boolean, integer, string, array or map");
    }
    return 0;
}

static const char *const KIND_ACTIONS[][3] = {
    {"grand_tichu", "grand_tichu", NULL}, {"exchange", "exchange", NULL}, {"tichu", "tichu", NULL},
    {"play", "pass", "play"}, {"bomb", "pass", "play"}, {"dragon_gift", "give_dragon", NULL}};

static int check_request_options(const msgpack_object *m, proto_error *err) {
    const msgpack_object *kind = proto_field(m, "kind"), *options = proto_field(m, "options");
    if (options->type == MSGPACK_OBJECT_NIL) return 0;
    for (int k = 0; k < 6; k++) {
        if (!proto_str_is(kind, KIND_ACTIONS[k][0])) continue;
        for (uint32_t i = 0; i < options->via.array.size; i++) {
            const msgpack_object *a = proto_field(&options->via.array.ptr[i], "action");
            if (!proto_str_is(a, KIND_ACTIONS[k][1]) && !(KIND_ACTIONS[k][2] && proto_str_is(a, KIND_ACTIONS[k][2]))) {
                char at[64];
                snprintf(at, sizeof at, "request.options[%u].action", i);
                return fail(err, "bad_value", at, "a %s request cannot offer '%.*s'", KIND_ACTIONS[k][0],
                            (int)a->via.str.size, a->via.str.ptr);
            }
        }
    }
    return 0;
}

static int is_nil_or_absent(const msgpack_object *o) { return !o || o->type == MSGPACK_OBJECT_NIL; }

static int validate(const msgpack_object *m, const char *sender, proto_error *err) {
    static const char *bot[] = {"hello", "reply", NULL};
    static const char *referee[] = {"welcome", "reject", "request", "events", "end", "error", NULL};
    const char **types = strcmp(sender, "bot") ? referee : bot;
    char name[40];
    if (m->type != MSGPACK_OBJECT_MAP) return wrong(err, "", m, "map");
    if (check_values(m, err)) return -1;
    const msgpack_object *t = proto_field(m, "type");
    if (!t) return fail(err, "missing_field", "type", "a message needs field 'type'");
    if (t->type != MSGPACK_OBJECT_STR) return wrong(err, "type", t, "string");
    int known = 0;
    for (int i = 0; types[i] && !known; i++) known = proto_str_is(t, types[i]);
    if (!known) return fail(err, "unknown_type", "type", "'%.*s' is not a %s message", (int)t->via.str.size, t->via.str.ptr, sender);
    snprintf(name, sizeof name, "msg.%.*s", (int)t->via.str.size, t->via.str.ptr);
    if (check_record(m, name, name + 4, err)) return -1;
    if (proto_str_is(t, "reply") && is_nil_or_absent(proto_field(m, "option")) == is_nil_or_absent(proto_field(m, "action")))
        return fail(err, "bad_value", "reply", "a reply holds exactly one of 'option' and 'action'");
    if (proto_str_is(t, "request")) return check_request_options(m, err);
    return 0;
}

int proto_decode(const char *data, size_t len, const char *sender, msgpack_unpacked *out, proto_error *err) {
    size_t off = 0;
    msgpack_unpacked_init(out);
    if (len > MAX_MESSAGE_BYTES) return fail(err, "oversize", "", "%zu bytes", len);
    msgpack_unpack_return ret = msgpack_unpack_next(out, data, len, &off);
    if (ret != MSGPACK_UNPACK_SUCCESS) return fail(err, "not_msgpack", "", "not one complete msgpack value");
    if (off != len) return fail(err, "not_msgpack", "", "%zu bytes after the value", len - off);
    return validate(&out->data, sender, err);
}

/* ----- encoding -------------------------------------------------------------------------- */

static void pack_str(msgpack_packer *pk, const char *s) {
    if (!s) {
        msgpack_pack_nil(pk);
        return;
    }
    msgpack_pack_str(pk, strlen(s));
    msgpack_pack_str_body(pk, s, strlen(s));
}

static void pack_bool(msgpack_packer *pk, int b) { b ? msgpack_pack_true(pk) : msgpack_pack_false(pk); }

void proto_pack_hello(msgpack_sbuffer *buf, const char *token, const char *name, const char *version,
                      const char *const *caps, int ncaps) {
    msgpack_packer pk;
    msgpack_packer_init(&pk, buf, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 6);
    pack_str(&pk, "type"), pack_str(&pk, "hello");
    pack_str(&pk, "protocol"), msgpack_pack_int(&pk, 1);
    pack_str(&pk, "token"), pack_str(&pk, token);
    pack_str(&pk, "name"), pack_str(&pk, name);
    pack_str(&pk, "version"), pack_str(&pk, version);
    pack_str(&pk, "capabilities"), msgpack_pack_array(&pk, ncaps);
    for (int i = 0; i < ncaps; i++) pack_str(&pk, caps[i]);
}

static void pack_action(msgpack_packer *pk, const proto_action *a) {
    const char *tag = a->tag;
    int play = !strcmp(tag, "play"), exchange = !strcmp(tag, "exchange");
    int with_call = !strcmp(tag, "grand_tichu") || !strcmp(tag, "tichu");
    msgpack_pack_map(pk, play ? 4 : !strcmp(tag, "pass") ? 1 : 2);
    pack_str(pk, "action"), pack_str(pk, tag);
    if (play || exchange) {
        pack_str(pk, play ? "cards" : "give");
        msgpack_pack_array(pk, a->ncards);
        for (int i = 0; i < a->ncards; i++) pack_str(pk, a->cards[i]);
    }
    if (play) pack_str(pk, "phoenix_as"), pack_str(pk, a->phoenix_as), pack_str(pk, "combination"), pack_str(pk, a->combination);
    if (with_call) pack_str(pk, "call"), pack_bool(pk, a->call);
    if (!strcmp(tag, "give_dragon")) pack_str(pk, "to"), msgpack_pack_int(pk, a->to);
}

void proto_pack_reply(msgpack_sbuffer *buf, const proto_reply *r) {
    msgpack_packer pk;
    msgpack_packer_init(&pk, buf, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 6);
    pack_str(&pk, "type"), pack_str(&pk, "reply");
    pack_str(&pk, "id"), msgpack_pack_long(&pk, r->id);
    pack_str(&pk, "option");
    if (r->option >= 0) msgpack_pack_long(&pk, r->option);
    else msgpack_pack_nil(&pk);
    pack_str(&pk, "action");
    if (r->option >= 0) msgpack_pack_nil(&pk);
    else pack_action(&pk, &r->action);
    pack_str(&pk, "call_tichu"), pack_bool(&pk, r->call_tichu);
    pack_str(&pk, "wish"), pack_str(&pk, r->wish);
}
