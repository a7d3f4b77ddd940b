// __NAME__: a Tichu Arena bot in C++ with cppzmq and msgpack-cxx (see protocol/PROTOCOL.md).
// Change decide(). Build: make (needs g++, make, cppzmq-dev and libmsgpack-cxx-dev).
#include <cstdlib>
#include <msgpack.hpp>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

// Messages as msgpack maps, keyed by the names of their fields (MSGPACK_DEFINE_MAP). A map
// read into one of them sets only the fields it names; the others of the message are skipped.
struct Observation {
    std::vector<std::string> hand;
    MSGPACK_DEFINE_MAP(hand);
};

struct Message {  // every message from the referee: its type is all we look at first
    std::string type;
    MSGPACK_DEFINE_MAP(type);
};

struct Request {  // PROTOCOL.md 5.4, the fields this bot uses
    uint64_t id = 0;
    std::string kind;
    Observation observation;
    std::optional<std::vector<msgpack::object>> options;  // nil for the exchange
    MSGPACK_DEFINE_MAP(id, kind, observation, options);
};

struct Hello {
    std::string type = "hello";
    int protocol = 1;
    std::string token, name = "__NAME__", version = "0.1.0";
    std::vector<std::string> capabilities;
    MSGPACK_DEFINE_MAP(type, protocol, token, name, version, capabilities);
};

struct Exchange {
    std::string action = "exchange";
    std::vector<std::string> give;
    MSGPACK_DEFINE_MAP(action, give);
};

struct Reply {  // PROTOCOL.md 5.5: exactly one of option and action is set
    std::string type = "reply";
    uint64_t id = 0;
    std::optional<size_t> option;
    std::optional<Exchange> action;
    bool call_tichu = false;
    std::optional<std::string> wish;
    MSGPACK_DEFINE_MAP(type, id, option, action, call_tichu, wish);
};

// The reply to one request: the first three cards to exchange, a random option otherwise.
static Reply decide(const Request &request) {
    Reply reply;
    reply.id = request.id;
    if (request.kind == "exchange") {
        const auto &hand = request.observation.hand;
        reply.action = Exchange{"exchange", {hand.begin(), hand.begin() + 3}};
    } else if (request.kind == "grand_tichu" || request.kind == "tichu") {
        reply.option = 0;  // option 0: no call
    } else {
        reply.option = std::rand() % request.options->size();
    }
    return reply;
}

template <typename T> static zmq::message_t packed(const T &value) {
    msgpack::sbuffer buffer;
    msgpack::pack(buffer, value);
    return zmq::message_t(buffer.data(), buffer.size());
}

int main() {
    zmq::context_t context;
    zmq::socket_t socket(context, zmq::socket_type::dealer);
    socket.set(zmq::sockopt::linger, 1000);
    socket.connect(std::getenv("TICHU_ENDPOINT"));
    Hello hello;
    hello.token = std::getenv("TICHU_TOKEN");
    socket.send(packed(hello), zmq::send_flags::none);
    for (;;) {
        zmq::message_t frame;
        if (!socket.recv(frame)) break;
        msgpack::object_handle message = msgpack::unpack(frame.data<char>(), frame.size());
        const std::string type = message.get().as<Message>().type;
        if (type == "request")
            socket.send(packed(decide(message.get().as<Request>())), zmq::send_flags::none);
        else if (type == "end" || type == "reject" || type == "error")
            break;
    }
    return 0;
}
