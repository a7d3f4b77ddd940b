import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.zeromq.ZMQ;

/** java-random: a random legal option at every decision, written from PROTOCOL.md alone. */
public final class RandomBot {
    private final Random random = new Random();

    static Map<String, Object> hello(String token) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "hello");
        m.put("protocol", 1);
        m.put("token", token);
        m.put("name", "java-random");
        m.put("version", "1.0.0");
        m.put("capabilities", List.of("multi_game", "auto_pass"));
        return m;
    }

    static Map<String, Object> reply(Object id, Object option, Object action) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "reply");
        m.put("id", id);
        m.put("option", option);
        m.put("action", action);
        m.put("call_tichu", false);
        m.put("wish", null);
        return m;
    }

    /** The reply to one request (PROTOCOL.md section 6): never call, random option otherwise. */
    @SuppressWarnings("unchecked")
    Map<String, Object> decide(Map<String, Object> request) {
        String kind = (String) request.get("kind");
        if (kind.equals("exchange")) {
            Map<String, Object> observation = (Map<String, Object>) request.get("observation");
            List<Object> hand = new ArrayList<>((List<Object>) observation.get("hand"));
            List<Object> give = new ArrayList<>();
            for (int i = 0; i < 3; i++) give.add(hand.remove(random.nextInt(hand.size())));
            Map<String, Object> action = new LinkedHashMap<>();
            action.put("action", "exchange");
            action.put("give", give);
            return reply(request.get("id"), null, action);
        }
        if (kind.equals("grand_tichu") || kind.equals("tichu")) return reply(request.get("id"), 0, null);
        List<Object> options = (List<Object>) request.get("options");
        return reply(request.get("id"), random.nextInt(options.size()), null);
    }

    /** Answer requests until the session ends; the process exit status. */
    int session(ZMQ.Socket socket) throws Protocol.ProtocolError {
        for (;;) {
            byte[] frame = socket.recv(0);
            if (frame == null) return 1;
            Map<String, Object> message = Protocol.decode(frame, "referee");
            String type = (String) message.get("type");
            if (type.equals("request")) {
                socket.send(Protocol.encode(decide(message)), 0);
            } else if (type.equals("end") && !Boolean.TRUE.equals(message.get("more_games"))) {
                return 0;
            } else if (type.equals("reject") || type.equals("error")) {
                System.err.println("java-random: " + type + ": " + message.get("message"));
                return 1;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String endpoint = System.getenv("TICHU_ENDPOINT");
        String token = System.getenv("TICHU_TOKEN");
        if (endpoint == null || token == null) {
            System.err.println("java-random: TICHU_ENDPOINT and TICHU_TOKEN must be set (the referee starts this bot)");
            System.exit(2);
        }
        ZMQ.Context context = ZMQ.context(1);
        ZMQ.Socket socket = context.socket(ZMQ.DEALER);
        socket.setLinger(1000);
        socket.setMaxMsgSize(Protocol.MAX_MESSAGE_BYTES);
        socket.connect(endpoint);
        socket.send(Protocol.encode(hello(token)), 0);
        int status = new RandomBot().session(socket);
        socket.close();
        context.term();
        System.exit(status);
    }
}
