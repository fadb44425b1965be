package dev.exactly.http;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.exactly.problem.ApiProblem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Parses small JSON request bodies into trees, refusing malformed JSON and duplicate keys with a 400 problem. */
public final class JsonBodies {

    /** Duplicate member names and anything after the one JSON value (RFC 8259, section 2) are refused. */
    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private JsonBodies() {
    }

    /**
     * Refuses a body in another Unicode encoding than UTF-8. JSON exchanged between systems MUST
     * be UTF-8 (RFC 8259, section 8.1); Jackson would otherwise guess UTF-16 or UTF-32 from zero
     * bytes or a byte order mark in the first four bytes (RFC 4627, section 3) and hand out
     * character offsets where byte offsets are expected. Invalid UTF-8 sequences further on are
     * refused by the parser itself.
     *
     * @param body the request body
     * @throws ApiProblem 400 when the body starts like UTF-16 or UTF-32
     */
    public static void requireUtf8(byte[] body) {
        if (body.length >= 2 && (body[0] == 0 || body[1] == 0
                || (body[0] == (byte) 0xFE && body[1] == (byte) 0xFF)
                || (body[0] == (byte) 0xFF && body[1] == (byte) 0xFE))) {
            throw ApiProblem.invalid(null, null, "the body must be UTF-8 JSON (RFC 8259, section 8.1): "
                    + "it starts with a NUL byte or a UTF-16/UTF-32 byte order mark");
        }
        long bad = malformedUtf8At(body);
        if (bad >= 0) {
            throw ApiProblem.invalid(null, null, "the body must be well-formed UTF-8 (RFC 3629): "
                    + "invalid byte sequence at byte " + bad);
        }
    }

    /**
     * Finds the first ill-formed UTF-8 sequence (RFC 3629, section 3: overlong forms, surrogates,
     * code points above U+10FFFF, truncated sequences), with the JDK's strict decoder. The JSON
     * parser alone lets some of these through, and such bytes would not read back unchanged.
     *
     * @return the byte offset of the first ill-formed sequence, or -1 when the bytes are UTF-8
     */
    static long malformedUtf8At(byte[] body) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(body);
        CharBuffer out = CharBuffer.allocate(8192);
        while (true) {
            CoderResult r = decoder.decode(in, out, true);
            if (r.isError()) {
                return in.position();
            }
            if (r.isUnderflow()) {
                r = decoder.flush(out);
                return r.isError() ? in.position() : -1;
            }
            out.clear();
        }
    }

    /**
     * What is wrong with a body Jackson could not parse, for a 400's detail: the parser's message
     * and, when it has one, the byte offset. A broken read limit (nesting deeper than 1000 levels,
     * a number of more than 1000 digits: Jackson's StreamReadConstraints) carries no location.
     *
     * @param e the parser's exception
     * @return e.g. "Unexpected end-of-input (at byte 12)"
     */
    public static String describe(JsonProcessingException e) {
        JsonLocation at = e.getLocation();
        return readable(e.getOriginalMessage())
                + (at == null || at.getByteOffset() < 0 ? "" : " (at byte " + at.getByteOffset() + ")");
    }

    /**
     * The 400 for a body the parser gave up on, shared by every JSON reader: a member name found
     * twice (strict duplicate detection) is named as the field, at {@code index} when the reader
     * knows which item it was in; other parse errors are "malformed JSON"; other read errors
     * "unreadable body". Details never carry the parser's internals ({@link #readable}).
     *
     * @param e     what reading the body threw
     * @param index the item being read (0-based), or null
     * @return the problem to throw
     */
    public static ApiProblem unparsable(IOException e, Integer index) {
        if (e instanceof JsonProcessingException j) {
            String duplicate = duplicateKey(j);
            if (duplicate == null) {
                return ApiProblem.invalid(null, null, "malformed JSON: " + describe(j));
            }
            String path = j.getProcessor() instanceof JsonParser p ? duplicatePath(p.getParsingContext(), index != null) : null;
            return ApiProblem.invalid(index, path != null ? path : duplicate, describe(j));
        }
        return ApiProblem.invalid(null, null, "unreadable body: " + readable(e.getMessage()));
    }

    /**
     * Where a strict parser found a member name twice, as the API names a nested field
     * ({@code payload.x.a}, {@code options.retryLimit}, {@code payload[1].queue}): the parser's
     * context from the body's root down to the repeated name.
     *
     * @param at        the parser's context when it threw (its current name is the repeated one)
     * @param inElement true when the reader names the envelope's element itself (an index is
     *                  given): the path then starts inside it, without {@code items[i]}
     * @return the path, or null when the context names no member
     */
    static String duplicatePath(JsonStreamContext at, boolean inElement) {
        List<String> parts = new ArrayList<>();
        for (JsonStreamContext c = at; c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                parts.add(0, "[" + c.getCurrentIndex() + "]");
            } else if (c.getCurrentName() != null) {
                parts.add(0, c.getCurrentName());
            }
        }
        if (inElement && parts.size() > 2 && parts.get(1).startsWith("[")) {
            parts = parts.subList(2, parts.size());
        }
        if (parts.isEmpty() || parts.get(parts.size() - 1).startsWith("[")) {
            return null;
        }
        StringBuilder out = new StringBuilder();
        for (String part : parts) {
            if (out.length() > 0 && !part.startsWith("[")) {
                out.append('.');
            }
            out.append(part);
        }
        return out.toString();
    }

    /**
     * The member name a strict parser found twice (StreamReadFeature.STRICT_DUPLICATE_DETECTION),
     * or null when {@code e} is another error.
     *
     * @param e the parser's exception
     * @return the duplicated name, e.g. "payload"
     */
    static String duplicateKey(JsonProcessingException e) {
        String m = e.getOriginalMessage();
        if (m == null || !m.startsWith("Duplicate field '")) {
            return null;
        }
        int end = m.lastIndexOf('\'');
        return end > "Duplicate field '".length() ? m.substring("Duplicate field '".length(), end) : null;
    }

    /**
     * A parser message without the parser's own internals: its advice naming Jackson settings
     * ("from `StreamReadConstraints.getMaxNestingDepth()`", "`StreamReadFeature…` disabled",
     * "enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow", "Feature 'ALLOW_COMMENTS' not
     * enabled") and its location suffix ("at [Source: …]"), which mean nothing to an API client.
     *
     * @param message a Jackson message (null gives "")
     * @return the message, first line only, with those parts removed
     */
    public static String readable(String message) {
        if (message == null) {
            return "";
        }
        String m = message.lines().findFirst().orElse("");
        m = m.replaceAll(",? ?from `[^`]*`", "").replaceAll("\\s*\\([^()]*`[^`]*`[^()]*\\)", "");
        // "(start marker at [Source: …; line: 1, column: 1])": the location goes with its parenthesis
        m = m.replaceAll("\\s*\\(start marker at \\[Source:.*$", "");
        m = m.replaceAll("\\s*at \\[Source:.*$", "");
        // advice to switch a parser setting on ("enable `JsonReadFeature.ALLOW_…` to allow",
        // "(not recognized as one since Feature 'ALLOW_COMMENTS' not enabled for parser)"): what
        // JSON (RFC 8259) does not allow stays refused, so the advice is dropped
        m = m.replaceAll("[:;,]?\\s*enable `[^`]*` to allow", "");
        m = m.replace("maybe a (non-standard) comment?", "JSON has no comments");
        m = m.replaceAll("\\s*\\([^()]*Feature[^()]*\\)", "");
        m = m.replaceAll("[:;,]?\\s*[^:;,]*(?:Feature|ALLOW_|FAIL_ON_)[^:;,]*", "");
        m = m.replaceAll("`[^`]*`", "");
        return m.strip();
    }

    /**
     * @param body UTF-8 JSON
     * @return the root, which must be a JSON object
     * @throws ApiProblem 400 when the body is empty, not UTF-8, malformed or not an object
     */
    public static JsonNode object(byte[] body) {
        requireUtf8(body);
        JsonNode root;
        try {
            root = body.length == 0 ? null : STRICT.readTree(body);
        } catch (IOException e) {
            throw unparsable(e, null);
        }
        if (root == null || !root.isObject()) {
            throw ApiProblem.invalid(null, null, "the body must be a JSON object");
        }
        return root;
    }
}
