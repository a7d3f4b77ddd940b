/* The random strategy: never call, three random cards to exchange, a random option otherwise. */
#include "decide.h"

#include <stdlib.h>
#include <string.h>

static char card_names[14][8];

void decide(const msgpack_object *request, proto_reply *reply) {
    const msgpack_object *options = proto_field(request, "options");
    const msgpack_object *kind = proto_field(request, "kind");
    memset(reply, 0, sizeof *reply);
    reply->id = (long)proto_field(request, "id")->via.u64;
    reply->option = 0;
    if (proto_str_is(kind, "exchange")) {
        const msgpack_object *hand = proto_field(proto_field(request, "observation"), "hand");
        int n = (int)hand->via.array.size, picked[14] = {0};
        reply->option = -1;
        reply->action.tag = "exchange";
        for (reply->action.ncards = 0; reply->action.ncards < 3;) {
            int i = rand() % n;
            if (picked[i]) continue;
            picked[i] = 1;
            const msgpack_object *c = &hand->via.array.ptr[i];
            memcpy(card_names[reply->action.ncards], c->via.str.ptr, c->via.str.size);
            card_names[reply->action.ncards][c->via.str.size] = '\0';
            reply->action.cards[reply->action.ncards] = card_names[reply->action.ncards];
            reply->action.ncards++;
        }
    } else if (!proto_str_is(kind, "grand_tichu") && !proto_str_is(kind, "tichu")) {
        reply->option = rand() % (long)options->via.array.size;
    }
}
