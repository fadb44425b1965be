package dev.exactly.destination;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import dev.exactly.http.RawJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * How a stored payload travels to an AWS destination, which carries text, not bytes: as it is when
 * it is I-JSON text (RFC 7493: JSON in UTF-8 without a lone surrogate escape), else base64-encoded
 * (RFC 4648) and marked so ({@code payloadEncoding} {@code base64}); and the FIFO message group of a
 * partition. A webhook body is stored as the provider sent it, so it may be JSON that only I-JSON
 * refuses; the API refuses such payloads ({@link RawJson}).
 */
final class AwsPayload {

    /** The {@code payloadEncoding} of a payload sent as it is. */
    static final String JSON = "json";
    /** The {@code payloadEncoding} of a payload sent base64-encoded. */
    static final String BASE64 = "base64";
    /** Longest SQS message group id (SendMessage's MessageGroupId). */
    static final int MAX_GROUP_ID = 128;

    /**
     * How many digits a message's size counts its attempt number with: those of the largest
     * maxAttempts any destination may have ({@link DestinationRules#MAX_ATTEMPTS}), so that every
     * attempt of a message, under any maxAttempts a later change or a redrive gives it, gets the
     * same verdict on the service's size limit as its first.
     */
    static final int ATTEMPT_DIGITS = Integer.toString(DestinationRules.MAX_ATTEMPTS).length();

    private static final JsonFactory JSON_FACTORY = new JsonFactory();

    private AwsPayload() {
    }

    /**
     * @return the payload as JSON text when it is one JSON value in strict UTF-8 (whitespace around
     *         it allowed, nothing else) with no lone surrogate escape (which a strict JSON reader,
     *         EventBridge's among them, may refuse), else null
     */
    static String json(byte[] payload) {
        return json(payload, false);
    }

    /**
     * {@link #json(byte[])} for an EventBridge {@code Detail}, which takes JSON integers in the range
     * of a signed 64-bit integer only (PutEvents' API reference): a payload with an integer outside
     * it, or a number too large for a 64-bit float (such as {@code 1e400}), is not sent as JSON.
     *
     * @return the payload as JSON text EventBridge takes, else null (it travels base64-encoded)
     */
    static String eventBridgeJson(byte[] payload) {
        return json(payload, true);
    }

    private static String json(byte[] payload, boolean numbersInRange) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(payload)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
        try (JsonParser p = JSON_FACTORY.createParser(text)) {
            if (p.nextToken() == null) {
                return null;
            }
            if (numbersInRange) {
                int depth = 0;
                for (com.fasterxml.jackson.core.JsonToken t = p.currentToken(); ; t = p.nextToken()) {
                    if (t == com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_INT
                            && p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                        return null; // outside a signed 64-bit integer
                    }
                    if (t == com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_FLOAT && !Double.isFinite(p.getDoubleValue())) {
                        return null;
                    }
                    depth += t.isStructStart() ? 1 : t.isStructEnd() ? -1 : 0;
                    if (depth == 0) {
                        break;
                    }
                }
            } else {
                p.skipChildren();
            }
            return p.nextToken() == null && RawJson.loneSurrogateEscape(payload) < 0 ? text : null;
        } catch (IOException | RuntimeException e) {
            return null; // not JSON, or beyond Jackson's read constraints (nesting depth, lengths)
        }
    }

    /**
     * @return the bytes to add to a message's size as sent with {@code attempt} to count it with an
     *         attempt number of {@link #ATTEMPT_DIGITS} digits (0 for an attempt that wide)
     */
    static int attemptPadding(int attempt) {
        return Math.max(0, ATTEMPT_DIGITS - Integer.toString(attempt).length());
    }

    /**
     * @return whether SQS accepts every character of {@code s} in a message body or string attribute:
     *         #x9, #xA, #xD, #x20 to #xD7FF, #xE000 to #xFFFD, #x10000 to #x10FFFF (SendMessage)
     */
    static boolean sqsText(String s) {
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            boolean ok = c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD)
                    || (c >= 0x10000 && c <= 0x10FFFF);
            if (!ok) {
                return false;
            }
            i += Character.charCount(c);
        }
        return true;
    }

    /**
     * The SQS FIFO message group of a partition: {@code <queue>/<partition>} (queue and partition
     * names never hold {@code /}), or, when that passes 128 characters, {@code sha256:} followed by
     * the lowercase hex SHA-256 of its UTF-8 bytes (71 characters).
     */
    static String groupId(String queue, String partition) {
        String plain = queue + "/" + partition;
        if (plain.length() <= MAX_GROUP_ID) {
            return plain;
        }
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(plain.getBytes(StandardCharsets.UTF_8));
            return "sha256:" + HexFormat.of().formatHex(h);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
        }
    }
}
