package dev.exactly.message;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * How a stored payload travels in an answer, the one rule for every answer that carries one (GET
 * of a message, pop): inlined as raw JSON when it is JSON, else as base64 (RFC 4648) in
 * {@code payloadBase64}. A payload pushed through the push API (no content type) was parsed as
 * JSON on the way in and is inlined as stored; a webhook body is inlined only when its media type
 * says JSON ({@code application/json} or {@code +json}) AND its bytes are one well-formed UTF-8
 * JSON value (RFC 8259), so an empty body or one that is not JSON never breaks the answer.
 *
 * @param json   the payload as raw JSON text, or null
 * @param base64 the payload in base64, or null (exactly one of the two is set)
 */
public record PayloadWire(String json, String base64) {

    /**
     * @param payload     the stored bytes
     * @param contentType the stored media type, null for a push API payload
     * @return its wire form
     */
    public static PayloadWire of(byte[] payload, String contentType) {
        String json = contentType == null ? new String(payload, StandardCharsets.UTF_8)
                : isJsonType(contentType) ? JsonText.wellFormed(payload) : null;
        return json != null ? new PayloadWire(json, null)
                : new PayloadWire(null, Base64.getEncoder().encodeToString(payload));
    }

    /** @return true when {@code contentType} names JSON ({@code application/json…} or {@code …+json}) */
    public static boolean isJsonType(String contentType) {
        return contentType.startsWith("application/json") || contentType.endsWith("+json");
    }
}
