import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The golden vectors of protocol/vectors/ (PROTOCOL.md section 10) against Protocol.java:
 * messages.json decodes to its message and encodes to its bytes, malformed.json is rejected
 * with the right code, every frame of the transcript decodes and every request of it gets a
 * valid reply. Usage: java VectorsTest [vectors folder]; exit status 1 on any failure.
 */
public final class VectorsTest {
    private static int checks;
    private static int failures;

    private static void expect(boolean ok, String name, String what) {
        checks++;
        if (!ok) {
            failures++;
            System.err.println("FAIL " + name + ": " + what);
        }
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args.length > 0 ? args[0] : "../../protocol/vectors");
        HexFormat hex = HexFormat.of();
        for (Object item : (List<Object>) Json.parse(Files.readString(dir.resolve("messages.json")))) {
            Map<String, Object> v = (Map<String, Object>) item;
            String name = (String) v.get("name");
            try {
                Map<String, Object> decoded = Protocol.decode(hex.parseHex((String) v.get("hex")), (String) v.get("sender"));
                expect(decoded.equals(v.get("message")), name, "decoded " + decoded);
                expect(hex.formatHex(Protocol.encode(v.get("message"))).equals(v.get("hex")), name, "encoding differs");
            } catch (Protocol.ProtocolError e) {
                expect(false, name, e.getMessage());
            }
        }
        for (Object item : (List<Object>) Json.parse(Files.readString(dir.resolve("malformed.json")))) {
            Map<String, Object> v = (Map<String, Object>) item;
            String got = "accepted";
            try {
                Protocol.decode(hex.parseHex((String) v.get("hex")), (String) v.get("sender"));
            } catch (Protocol.ProtocolError e) {
                got = e.code;
            }
            expect(got.equals(v.get("code")), (String) v.get("name"), "expected " + v.get("code") + ", got " + got);
        }
        transcript(dir, hex);
        System.out.println((checks - failures) + " of " + checks + " checks passed");
        System.exit(failures == 0 ? 0 : 1);
    }

    @SuppressWarnings("unchecked")
    private static void transcript(Path dir, HexFormat hex) throws Exception {
        ByteBuffer bin = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("transcript.bin")));
        RandomBot bot = new RandomBot();
        int n = 0;
        for (String line : Files.readAllLines(dir.resolve("transcript.jsonl"), StandardCharsets.UTF_8)) {
            Map<String, Object> entry = (Map<String, Object>) Json.parse(line);
            byte[] frame = new byte[bin.getInt()];
            bin.get(frame);
            String name = "transcript message " + n++;
            String sender = entry.get("from").equals("bot") ? "bot" : "referee";
            try {
                Map<String, Object> message = Protocol.decode(frame, sender);
                expect(message.equals(entry.get("message")), name, "decoded " + message);
                if (sender.equals("bot")) expect(hex.formatHex(Protocol.encode(entry.get("message"))).equals(hex.formatHex(frame)), name, "encoding differs");
                if (message.get("type").equals("request")) {
                    Map<String, Object> reply = bot.decide(message);
                    Protocol.decode(Protocol.encode(reply), "bot");
                    Object option = reply.get("option");
                    if (option != null) expect((Integer) option < ((List<?>) message.get("options")).size(), name, "option out of range");
                }
            } catch (Protocol.ProtocolError e) {
                expect(false, name, e.getMessage());
            }
        }
        expect(!bin.hasRemaining(), "transcript.bin", "bytes left after the last frame");
    }

    /** A small JSON reader: objects as LinkedHashMap, arrays as List, integers as Long. */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        static Object parse(String text) {
            Json p = new Json(text);
            Object v = p.value();
            p.skip();
            if (p.i != text.length()) throw new IllegalArgumentException("trailing text at " + p.i);
            return v;
        }

        private void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        }

        private Object value() {
            skip();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                skip();
                if (s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                do {
                    skip();
                    String key = string();
                    skip();
                    i++; // ':'
                    m.put(key, value());
                    skip();
                } while (s.charAt(i++) == ',');
                return m;
            }
            if (c == '[') {
                List<Object> a = new ArrayList<>();
                i++;
                skip();
                if (s.charAt(i) == ']') {
                    i++;
                    return a;
                }
                do {
                    a.add(value());
                    skip();
                } while (s.charAt(i++) == ',');
                return a;
            }
            if (c == '"') return string();
            for (String word : new String[] {"true", "false", "null"}) {
                if (s.startsWith(word, i)) {
                    i += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word.equals("true"));
                }
            }
            int start = i;
            while (i < s.length() && "-0123456789".indexOf(s.charAt(i)) >= 0) i++;
            return Long.parseLong(s.substring(start, i));
        }

        private String string() {
            StringBuilder b = new StringBuilder();
            i++; // opening quote
            for (char c = s.charAt(i++); c != '"'; c = s.charAt(i++)) {
                if (c == '\\') {
                    char e = s.charAt(i++);
                    if (e == 'u') {
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    } else {
                        b.append(Objects.requireNonNull(Map.of('n', '\n', 't', '\t', 'r', '\r', 'b', '\b', 'f', '\f').getOrDefault(e, e)));
                    }
                } else {
                    b.append(c);
                }
            }
            return b.toString();
        }
    }
}
