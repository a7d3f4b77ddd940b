#ifndef TICHU_DECIDE_H
#define TICHU_DECIDE_H
#include "protocol.h"

/* The reply of the random strategy to a validated request (strings point into `request`). */
void decide(const msgpack_object *request, proto_reply *reply);

#endif
