import java.util.List;
import java.util.Random;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.value.Value;
import org.zeromq.ZMQ;

/** __NAME__: a Tichu Arena bot in Java (see protocol/PROTOCOL.md). Change decide(). */
public final class Bot {
    private static final Random RANDOM = new Random();

    static Value field(Value map, String key) {
        return map.asMapValue().map().get(org.msgpack.value.ValueFactory.newString(key));
    }

    /** The reply to one request: the first three cards to exchange, a random option otherwise. */
    static byte[] decide(Value request) throws Exception {
        String kind = field(request, "kind").asStringValue().asString();
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packMapHeader(6);
        p.packString("type").packString("reply");
        p.packString("id").packLong(field(request, "id").asIntegerValue().toLong());
        p.packString("option");
        if (kind.equals("exchange")) {
            List<Value> hand = field(field(request, "observation"), "hand").asArrayValue().list();
            p.packNil();
            p.packString("action").packMapHeader(2);
            p.packString("action").packString("exchange");
            p.packString("give").packArrayHeader(3);
            for (int i = 0; i < 3; i++) p.packValue(hand.get(i));
        } else {
            int n = field(request, "options").asArrayValue().size();
            p.packInt(kind.equals("grand_tichu") || kind.equals("tichu") ? 0 : RANDOM.nextInt(n));
            p.packString("action").packNil();
        }
        p.packString("call_tichu").packBoolean(false);
        p.packString("wish").packNil();
        return p.toByteArray();
    }

    public static void main(String[] args) throws Exception {
        ZMQ.Context context = ZMQ.context(1);
        ZMQ.Socket socket = context.socket(ZMQ.DEALER);
        socket.setLinger(1000);
        socket.connect(System.getenv("TICHU_ENDPOINT"));
        MessageBufferPacker hello = MessagePack.newDefaultBufferPacker();
        hello.packMapHeader(6);
        hello.packString("type").packString("hello");
        hello.packString("protocol").packInt(1);
        hello.packString("token").packString(System.getenv("TICHU_TOKEN"));
        hello.packString("name").packString("__NAME__");
        hello.packString("version").packString("0.1.0");
        hello.packString("capabilities").packArrayHeader(0);
        socket.send(hello.toByteArray(), 0);
        for (;;) {
            Value message = MessagePack.newDefaultUnpacker(socket.recv(0)).unpackValue();
            String type = field(message, "type").asStringValue().asString();
            if (type.equals("request")) socket.send(decide(message), 0);
            else if (type.equals("end") || type.equals("reject") || type.equals("error")) break;
        }
        socket.close();
        context.term();
    }
}
