import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.Value;

/**
 * The Tichu Arena wire protocol (protocol/PROTOCOL.md, version 1): strict decoding with
 * msgpack-core into plain Java values (LinkedHashMap, List, Long, String, Boolean, null),
 * validation against the field tables of PROTOCOL.md (schema.txt, one line per map), and
 * canonical encoding of such values (map keys in insertion order, shortest forms).
 */
public final class Protocol {
    public static final int MAX_MESSAGE_BYTES = 1 << 20;
    private static final long INT32 = 2147483647L;
    private static final List<String> RANKS = Arrays.asList("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A");
    private static final Set<String> CARDS = new HashSet<>(Arrays.asList("Mahjong", "Dog", "Phoenix", "Dragon"));
    private static final Map<String, List<String[]>> SCHEMA = loadSchema();
    private static final Map<String, List<String>> KIND_ACTIONS = Map.of(
        "grand_tichu", List.of("grand_tichu"), "exchange", List.of("exchange"), "tichu", List.of("tichu"),
        "play", List.of("pass", "play"), "bomb", List.of("pass", "play"), "dragon_gift", List.of("give_dragon"));

    static {
        for (String r : RANKS) for (String s : new String[] {"j", "s", "p", "t"}) CARDS.add(r + s);
    }

    private Protocol() {}

    /** A malformed message; {@code code} is one of PROTOCOL.md section 10's fault kinds. */
    public static final class ProtocolError extends Exception {
        public final String code;

        ProtocolError(String code, String where, String detail) {
            super(code + " at " + (where.isEmpty() ? "<message>" : where) + ": " + detail);
            this.code = code;
        }
    }

    private static Map<String, List<String[]>> loadSchema() {
        Map<String, List<String[]>> records = new LinkedHashMap<>();
        try (InputStream in = Protocol.class.getResourceAsStream("/schema.txt")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank()) continue;
                String[] nameRest = line.split(": ", 2);
                List<String[]> fields = new ArrayList<>();
                for (String f : nameRest[1].split(", ")) fields.add(f.split("=", 2));
                records.put(nameRest[0], fields);
            }
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("schema.txt is missing from the class path", e);
        }
        return records;
    }

    // ----- decoding ----------------------------------------------------------------------

    /** Decode and validate one frame sent by {@code sender} ("bot" or "referee"). */
    public static Map<String, Object> decode(byte[] data, String sender) throws ProtocolError {
        if (data.length > MAX_MESSAGE_BYTES) throw new ProtocolError("oversize", "", data.length + " bytes");
        Value value;
        try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(data)) {
            value = unpacker.unpackValue();
            if (unpacker.hasNext()) throw new ProtocolError("not_msgpack", "", "bytes after the value");
        } catch (IOException | RuntimeException e) {
            throw new ProtocolError("not_msgpack", "", String.valueOf(e.getMessage()));
        }
        Object message = plain(value, "");
        validate(message, sender);
        @SuppressWarnings("unchecked")
        Map<String, Object> map = (Map<String, Object>) message;
        return map;
    }

    /** A msgpack value as a plain Java value; rejects what PROTOCOL.md section 3 forbids. */
    private static Object plain(Value v, String where) throws ProtocolError {
        switch (v.getValueType()) {
            case NIL: return null;
            case BOOLEAN: return v.asBooleanValue().getBoolean();
            case INTEGER: return v.asIntegerValue().isInLongRange() ? v.asIntegerValue().toLong() : Long.MAX_VALUE;
            case STRING:
                try {
                    return v.asStringValue().asString();
                } catch (RuntimeException e) {
                    throw new ProtocolError("bad_value", where, "a string that is not UTF-8");
                }
            case ARRAY: {
                List<Object> out = new ArrayList<>();
                for (Value item : v.asArrayValue()) out.add(plain(item, where + "[" + out.size() + "]"));
                return out;
            }
            case MAP: {
                Map<String, Object> out = new LinkedHashMap<>();
                Value[] kv = v.asMapValue().getKeyValueArray();
                for (int i = 0; i < kv.length; i += 2) {
                    if (!kv[i].isStringValue()) throw new ProtocolError("wrong_type", where, "map keys must be strings");
                    String key = kv[i].asStringValue().asString();
                    if (out.containsKey(key)) throw new ProtocolError("duplicate_field", where, "the key '" + key + "' is repeated");
                    out.put(key, plain(kv[i + 1], join(where, key)));
                }
                return out;
            }
            default:
                throw new ProtocolError("wrong_type", where, v.getValueType() + " values are not allowed");
        }
    }

    // ----- validation --------------------------------------------------------------------

    private static String join(String where, String key) {
        return where.isEmpty() ? key : where + "." + key;
    }

    private static String typeName(Object v) {
        if (v == null) return "nil";
        if (v instanceof Map) return "map";
        if (v instanceof List) return "array";
        if (v instanceof Long) return "integer";
        if (v instanceof Boolean) return "boolean";
        return "string";
    }

    private static ProtocolError wrong(Object v, String where, String expected) {
        return new ProtocolError("wrong_type", where, "expected " + expected + ", got " + typeName(v));
    }

    private static void range(long n, long lo, long hi, String where, String what) throws ProtocolError {
        if (n < lo || n > hi) throw new ProtocolError("bad_value", where, what + " " + n + " is outside " + lo + ".." + hi);
    }

    /** Check a decoded message sent by {@code sender}; ProtocolError naming the fault if invalid. */
    public static void validate(Object message, String sender) throws ProtocolError {
        List<String> types = sender.equals("bot") ? List.of("hello", "reply")
            : List.of("welcome", "reject", "request", "events", "end", "error");
        if (!(message instanceof Map)) throw wrong(message, "", "map");
        Map<?, ?> m = (Map<?, ?>) message;
        if (!m.containsKey("type")) throw new ProtocolError("missing_field", "type", "a message needs field 'type'");
        if (!(m.get("type") instanceof String)) throw wrong(m.get("type"), "type", "string");
        String type = (String) m.get("type");
        if (!types.contains(type)) throw new ProtocolError("unknown_type", "type", "'" + type + "' is not a " + sender + " message");
        checkRecord(m, "msg." + type, type);
        if (type.equals("reply") && (m.get("option") == null) == (m.get("action") == null)) {
            throw new ProtocolError("bad_value", "reply", "a reply holds exactly one of 'option' and 'action'");
        }
        if (type.equals("request") && m.get("options") != null) {
            List<?> options = (List<?>) m.get("options");
            for (int i = 0; i < options.size(); i++) {
                Object action = ((Map<?, ?>) options.get(i)).get("action");
                if (!KIND_ACTIONS.get(m.get("kind")).contains(action)) {
                    throw new ProtocolError("bad_value", "request.options[" + i + "].action", "a " + m.get("kind") + " request cannot offer '" + action + "'");
                }
            }
        }
    }

    /* Specs: i[:lo:hi] integer, b boolean, s:lo:hi string length, e:a|b enum (k: unknown_kind),
     * r rank, c card, C:lo:hi card set, [lo:hi]X array, ?X nullable, @name map, <family union,
     * t the union's own tag. */
    private static void check(Object v, String spec, String where) throws ProtocolError {
        char t = spec.charAt(0);
        if (t == '?') {
            if (v != null) check(v, spec.substring(1), where);
            return;
        }
        if (t == '[') {
            checkArray(v, spec, where);
            return;
        }
        if (t == '@') {
            checkRecord(v, spec.substring(1), where);
            return;
        }
        if (t == '<') {
            checkTagged(v, spec.substring(1), where);
            return;
        }
        String[] p = spec.split(":");
        switch (t) {
            case 'i':
                if (!(v instanceof Long)) throw wrong(v, where, "integer");
                range((Long) v, p.length > 1 ? Long.parseLong(p[1]) : -INT32, p.length > 1 ? Long.parseLong(p[2]) : INT32, where, "value");
                return;
            case 'b':
                if (!(v instanceof Boolean)) throw wrong(v, where, "boolean");
                return;
            case 't':
                return;
            case 'C':
                checkArray(v, "[" + p[1] + ":" + p[2] + "]c", where);
                if (new HashSet<>((List<?>) v).size() != ((List<?>) v).size()) throw new ProtocolError("bad_value", where, "a card is listed twice");
                return;
            default:
        }
        if (!(v instanceof String)) throw wrong(v, where, "string");
        String s = (String) v;
        if (t == 's') {
            range(s.codePointCount(0, s.length()), Long.parseLong(p[1]), Long.parseLong(p[2]), where, "length");
        } else if (t == 'c') {
            if (!CARDS.contains(s)) throw new ProtocolError("bad_value", where, "'" + s + "' is not a card name");
        } else {
            List<String> choices = t == 'r' ? RANKS : Arrays.asList(p[1].split("\\|"));
            if (!choices.contains(s)) throw new ProtocolError(t == 'k' ? "unknown_kind" : "bad_value", where, "'" + s + "' is not one of " + choices);
        }
    }

    private static void checkArray(Object v, String spec, String where) throws ProtocolError {
        int close = spec.indexOf(']');
        String[] bounds = spec.substring(1, close).split(":");
        if (!(v instanceof List)) throw wrong(v, where, "array");
        List<?> items = (List<?>) v;
        range(items.size(), Long.parseLong(bounds[0]), Long.parseLong(bounds[1]), where, "item count");
        for (int i = 0; i < items.size(); i++) check(items.get(i), spec.substring(close + 1), where + "[" + i + "]");
    }

    private static void checkRecord(Object v, String name, String where) throws ProtocolError {
        String base = where.isEmpty() ? name : where;
        if (!(v instanceof Map)) throw wrong(v, base, "map");
        Map<?, ?> m = (Map<?, ?>) v;
        List<String[]> fields = SCHEMA.get(name);
        for (Object key : m.keySet()) {
            boolean known = fields.stream().anyMatch(f -> f[0].replace("?", "").equals(key));
            if (!known) throw new ProtocolError("unknown_field", join(base, (String) key), name + " has no field '" + key + "'");
        }
        for (String[] f : fields) {
            boolean optional = f[0].endsWith("?");
            String key = f[0].replace("?", "");
            if (m.containsKey(key)) check(m.get(key), f[1], join(base, key));
            else if (!optional) throw new ProtocolError("missing_field", join(base, key), name + " needs field '" + key + "'");
        }
    }

    private static void checkTagged(Object v, String family, String where) throws ProtocolError {
        String tag = family.equals("action") ? "action" : "kind";
        if (!(v instanceof Map)) throw wrong(v, where, "map");
        Map<?, ?> m = (Map<?, ?>) v;
        if (!m.containsKey(tag)) throw new ProtocolError("missing_field", join(where, tag), "a map needs field '" + tag + "'");
        List<String> kinds = new ArrayList<>();
        for (String name : SCHEMA.keySet()) if (name.startsWith(family + ".")) kinds.add(name.substring(family.length() + 1));
        check(m.get(tag), "k:" + String.join("|", kinds), join(where, tag));
        checkRecord(v, family + "." + m.get(tag), where);
    }

    // ----- encoding ----------------------------------------------------------------------

    /** The canonical bytes of a plain value whose map keys are in PROTOCOL.md order. */
    public static byte[] encode(Object message) {
        try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
            pack(packer, message);
            return packer.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void pack(MessageBufferPacker packer, Object v) throws IOException {
        if (v == null) {
            packer.packNil();
        } else if (v instanceof Boolean) {
            packer.packBoolean((Boolean) v);
        } else if (v instanceof Number) {
            packer.packLong(((Number) v).longValue());
        } else if (v instanceof String) {
            packer.packString((String) v);
        } else if (v instanceof List) {
            packer.packArrayHeader(((List<?>) v).size());
            for (Object item : (List<?>) v) pack(packer, item);
        } else {
            Map<?, ?> m = (Map<?, ?>) v;
            packer.packMapHeader(m.size());
            for (Map.Entry<?, ?> e : m.entrySet()) {
                packer.packString((String) e.getKey());
                pack(packer, e.getValue());
            }
        }
    }
}
