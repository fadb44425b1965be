package dev.exactly.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.exactly.problem.ApiProblem;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveResourceInfo;
import org.jboss.resteasy.reactive.server.spi.ServerMessageBodyReader;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

/**
 * Binds every JSON request body to the resource method's record (Jackson), whatever the request's
 * Content-Type names, strictly: unknown fields and duplicate member names are refused (a misspelt
 * {@code transactionID} or a second {@code transactionId} would otherwise silently change what
 * deduplicates), no value is coerced into another type ("5" is no integer, 1.5 no int, 7 no
 * string), nesting is at most {@value #MAX_DEPTH} levels and a number at most
 * {@value #MAX_NUMBER_LENGTH} characters (Jackson's StreamReadConstraints), nothing may follow the
 * object, and the body must be well-formed UTF-8 (RFC 8259, section 8.1; RFC 3629), a byte order
 * mark before it ignored. An empty body reads as {@code {}}. A failure is a 400 problem naming the field ({@link RequestProblems}); the
 * records' constraints are checked afterwards by Hibernate Validator ({@code @Valid}).
 *
 * <p>It is its own reader, not Quarkus REST's Jackson reader, because a {@link RawJson} is cut out
 * of the body's bytes, which a parser over the request's stream does not keep.
 */
@Provider
@Consumes(MediaType.WILDCARD)
public class JsonBodyReader implements ServerMessageBodyReader<Record> {

    /** Deepest nesting of arrays and objects, the body's own object counted. */
    public static final int MAX_DEPTH = 1000;
    /** Longest number, in characters. */
    public static final int MAX_NUMBER_LENGTH = 1000;

    /** The deserialization attribute holding the body's bytes, for {@link RawJson}. */
    static final String BODY = "dev.exactly.http.body";

    static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(MAX_DEPTH).maxNumberLength(MAX_NUMBER_LENGTH).build())
                    .build())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .withCoercionConfig(LogicalType.Textual, c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .addModule(new SimpleModule().addDeserializer(UUID.class, new WholeUuid()))
            .build();

    @Override
    public boolean isReadable(Class<?> type, Type generic, ResteasyReactiveResourceInfo method, MediaType media) {
        return type.isRecord();
    }

    @Override
    public boolean isReadable(Class<?> type, Type generic, Annotation[] annotations, MediaType media) {
        return type.isRecord();
    }

    @Override
    public Record readFrom(Class<Record> type, Type generic, MediaType media, ServerRequestContext context)
            throws IOException {
        return read(type, context.getInputStream().readAllBytes());
    }

    @Override
    public Record readFrom(Class<Record> type, Type generic, Annotation[] annotations, MediaType media,
                           MultivaluedMap<String, String> headers, InputStream body) throws IOException {
        return read(type, body.readAllBytes());
    }

    /**
     * Binds a body to a record.
     *
     * @param type the record
     * @param body the request body, possibly empty
     * @return the record, its constraints not yet checked
     * @throws ApiProblem 400 for a body that is not UTF-8, malformed, has content after the object
     *                    or does not bind, naming the field where it can
     */
    public static <T> T read(Class<T> type, byte[] body) {
        requireUtf8(body);
        if (startsWithMark(body)) {
            // a UTF-8 byte order mark is dropped (RFC 8259, section 8.1) here: Jackson skips one only
            // in a body of 4 bytes or more, so a mark alone would be malformed rather than empty; byte
            // offsets in problems then count from after it. Jackson would skip a second one too.
            body = java.util.Arrays.copyOfRange(body, 3, body.length);
            if (startsWithMark(body)) {
                throw ApiProblem.invalid(null, null, "malformed JSON: a second byte order mark (U+FEFF) after the first");
            }
        }
        try (JsonParser p = MAPPER.createParser(body)) {
            T value = p.nextToken() == null ? MAPPER.readValue("{}", type)
                    : MAPPER.readerFor(type).withAttribute(BODY, body).readValue(p);
            if (value == null) {
                throw ApiProblem.invalid(null, null, "the body must be a JSON object, not null");
            }
            if (p.nextToken() != null) {
                throw ApiProblem.invalid(null, null, "unexpected content after the JSON object");
            }
            return value;
        } catch (JacksonException e) {
            throw RequestProblems.of(type, e);
        } catch (IOException e) {
            throw ApiProblem.invalid(null, null, "unreadable body: " + e.getMessage());
        }
    }

    /** @return whether the bytes start with the UTF-8 byte order mark, EF BB BF */
    private static boolean startsWithMark(byte[] body) {
        return body.length >= 3 && body[0] == (byte) 0xEF && body[1] == (byte) 0xBB && body[2] == (byte) 0xBF;
    }

    /**
     * Refuses any other encoding than UTF-8: Jackson would guess UTF-16 or UTF-32 from NUL bytes or
     * a byte order mark at the start (and hand out character offsets for byte offsets), and lets
     * some ill-formed sequences through (overlong forms, surrogates), which would not read back
     * unchanged.
     */
    private static void requireUtf8(byte[] body) {
        if (body.length >= 2 && (body[0] == 0 || body[1] == 0 || (body[0] & 0xFE) == 0xFE && (body[1] & 0xFE) == 0xFE)) {
            throw ApiProblem.invalid(null, null, "the body must be UTF-8 JSON (RFC 8259, section 8.1): "
                    + "it starts with a NUL byte or a UTF-16/UTF-32 byte order mark");
        }
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder(); // reports what is ill-formed
        ByteBuffer in = ByteBuffer.wrap(body);
        // decoded only to be checked: a buffer of at most the body's length (UTF-8 never decodes to
        // more chars than bytes), at least 2 (a surrogate pair), at most 4,096 chars, reused
        CharBuffer out = CharBuffer.allocate(Math.max(2, Math.min(body.length, 4096)));
        for (CoderResult r; !(r = utf8.decode(in, out, true)).isUnderflow(); out.clear()) {
            if (r.isError()) {
                throw ApiProblem.invalid(null, null, "the body must be well-formed UTF-8 (RFC 3629): "
                        + "invalid byte sequence at byte " + in.position());
            }
        }
    }

    /** A UUID written out in full (36 characters, RFC 9562 section 4), not Jackson's base64 form. */
    private static final class WholeUuid extends StdScalarDeserializer<UUID> {

        WholeUuid() {
            super(UUID.class);
        }

        @Override
        public UUID deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                return (UUID) ctxt.handleUnexpectedToken(UUID.class, p);
            }
            String text = p.getText();
            try {
                if (text.length() == 36) {
                    return UUID.fromString(text);
                }
            } catch (IllegalArgumentException e) {
                // reported below
            }
            return (UUID) ctxt.handleWeirdStringValue(UUID.class, text, "not a UUID");
        }
    }
}
