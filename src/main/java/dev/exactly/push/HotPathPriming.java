package dev.exactly.push;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.config.ExactlyConfig;
import dev.exactly.engine.DedupCache;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.PushItem;
import dev.exactly.engine.PushRepository;
import dev.exactly.engine.PushStatus;
import dev.exactly.engine.PushVerdict;
import dev.exactly.engine.RequestGrouping;
import dev.exactly.engine.Segment;
import dev.exactly.http.JsonBodyReader;
import dev.exactly.problem.ApiProblem;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.quarkus.runtime.PreloadClassesRecorder;
import io.vertx.core.buffer.Buffer;
import io.vertx.pgclient.impl.codec.DataType;
import io.vertx.pgclient.impl.codec.DataTypeCodec;
import io.vertx.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.validation.Validator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * The push path's work in memory, run before the service serves so that its first pushes find the
 * code loaded, initialised and compiled: optionally every class of Quarkus' preload list
 * (META-INF/quarkus-generated-preload-classes.txt, the application's), then
 * {@code exactly.priming.rounds} rounds of a one-item push as the HTTP path does it without the
 * database: binding ({@link JsonBodyReader}, as requests are bound), validation
 * ({@link PushRequest#valid()}; Hibernate Validator for a refused body), the engine's grouping and
 * hashing, the {@code push_bundle} arguments with the PostgreSQL client's binary encoding of each
 * and the decoding of the answer's column types (on a buffer), the answer's JSON, and two refusals (an unknown field, a broken constraint) as
 * problem+json. Nothing connects to the database and nothing is written.
 *
 * <p>Run by the server shape at start-up, before its HTTP listener opens
 * ({@code dev.exactly.server.StartupPriming}), and by the Lambda shape before a SnapStart
 * checkpoint only ({@code dev.exactly.lambda.SnapStartHooks}): a Lambda start without SnapStart
 * runs none of it, as all of it would be paid in its cold start.
 */
@ApplicationScoped
public class HotPathPriming {

    private static final Logger LOG = Logger.getLogger(HotPathPriming.class);

    private static final byte[] PUSH = body("{\"items\":[{\"queue\":\"priming\",\"transactionId\":\"t-1\","
            + "\"payload\":{\"n\":1,\"s\":\"text\"},\"traceId\":\"trace\"}]}");
    private static final byte[] UNKNOWN_FIELD = body("{\"items\":[{\"queue\":\"priming\",\"payload\":1,\"transactionID\":\"t\"}]}");
    private static final byte[] NO_ITEMS = body("{\"items\":[]}");
    /** The column types of the answers of push_bundle and push_segment (item, offset, id, duplicate, payload). */
    private static final DataType[] ANSWER_TYPES = {DataType.INT4, DataType.INT8, DataType.UUID, DataType.BOOL, DataType.BYTEA};

    private final ObjectMapper json;
    private final Validator validator;
    private final int rounds;
    private final AtomicLong roundsRun = new AtomicLong();

    /** Constructor injection: the application's ObjectMapper (the answers'), validator and {@code exactly.priming.rounds}. */
    public HotPathPriming(ObjectMapper json, Validator validator, ExactlyConfig config) {
        this.json = json;
        this.validator = validator;
        this.rounds = config.priming().rounds();
    }

    /** The configured rounds ({@code exactly.priming.rounds}; 0: no priming). */
    public int rounds() {
        return rounds;
    }

    /** Rounds run by {@link #prime} since the application started (the start-up's own included). */
    public long roundsRun() {
        return roundsRun.get();
    }

    /**
     * Runs the push path's in-memory work {@link #rounds()} times, after preloading the
     * application's classes if asked; logs what it took, prefixed with {@code when}.
     *
     * @param preloadClasses load and initialise every class of Quarkus' preload list first
     * @param when           the log line's prefix (e.g. "SnapStart: before checkpoint")
     * @return bytes encoded for the database over all rounds (keeps the work from being optimised away; for the log)
     */
    public long prime(boolean preloadClasses, String when) {
        long start = System.nanoTime();
        if (preloadClasses) {
            PreloadClassesRecorder.preloadClasses(true);
        }
        long preloaded = System.nanoTime();
        long bytes = 0;
        for (int i = 0; i < rounds; i++) {
            bytes += round();
        }
        roundsRun.addAndGet(rounds);
        long done = System.nanoTime();
        if (preloadClasses) {
            LOG.infof("%s, classes preloaded in %d ms, %d rounds of the push path in %d ms",
                    when, (preloaded - start) / 1_000_000, rounds, (done - preloaded) / 1_000_000);
        } else {
            LOG.infof("%s, %d rounds of the push path in %d ms", when, rounds, (done - preloaded) / 1_000_000);
        }
        return bytes;
    }

    /**
     * One push, bound, validated, grouped, encoded and answered; then the two refusals.
     *
     * @return bytes encoded for the database and written as answers
     */
    public long round() {
        PushRequest request = JsonBodyReader.read(PushRequest.class, PUSH);
        if (!request.valid()) {
            throw new IllegalStateException("the priming push is invalid");
        }
        List<PushCommand> commands = request.items().stream().map(PushRequest.Item::command).toList();
        RequestGrouping grouping = RequestGrouping.of(commands);
        List<Segment> segments = grouping.segments();
        long[] verified = new long[segments.size()];
        java.util.Arrays.fill(verified, DedupCache.PROBE_ALL);
        long bytes = encode(PushRepository.bundleArguments(segments, verified, null, false).getDelegate());
        List<PushVerdict> verdicts = new ArrayList<>();
        for (Segment s : segments) {
            for (PushItem item : s.items()) {
                verdicts.add(new PushVerdict(verdicts.size(), s.partition().queue(), s.partition().partition(),
                        item.transactionId(), item.messageId(), PushStatus.QUEUED, verdicts.size() + 1L));
            }
        }
        bytes += answer(new PushResponse(verdicts.stream().map(v -> PushResult.of(v, "items", v.index())).toList())).length;
        try {
            JsonBodyReader.read(PushRequest.class, UNKNOWN_FIELD);
            throw new IllegalStateException("the priming push with an unknown field was bound");
        } catch (ApiProblem refused) {
            bytes += answer(refused.toProblem()).length;
        }
        if (validator.validate(JsonBodyReader.read(PushRequest.class, NO_ITEMS)).isEmpty()) {
            throw new IllegalStateException("the priming push without items is valid");
        }
        return bytes;
    }

    /** Each argument in the PostgreSQL binary format, as the client sends it; then the answer's column types decoded. */
    private static long encode(Tuple args) {
        ByteBuf buf = Unpooled.buffer(1024);
        try {
            for (int i = 0; i < args.size(); i++) {
                Object value = args.getValue(i);
                DataType type = typeOf(value);
                if (type != null) {
                    DataTypeCodec.encodeBinary(type, value, buf);
                }
            }
            long bytes = buf.writerIndex();
            Object[] answer = {1, 1L, new UUID(1L, 2L), Boolean.FALSE, Buffer.buffer(PUSH)};
            for (int i = 0; i < ANSWER_TYPES.length; i++) {
                buf.clear();
                DataTypeCodec.encodeBinary(ANSWER_TYPES[i], answer[i], buf);
                DataTypeCodec.decodeBinary(ANSWER_TYPES[i], 0, buf.writerIndex(), buf);
            }
            return bytes;
        } finally {
            buf.release();
        }
    }

    /** The PostgreSQL type the client sends a push_bundle argument as (null for a null argument). */
    private static DataType typeOf(Object value) {
        if (value instanceof String[]) {
            return DataType.TEXT_ARRAY;
        } else if (value instanceof Long[]) {
            return DataType.INT8_ARRAY;
        } else if (value instanceof Integer[]) {
            return DataType.INT4_ARRAY;
        } else if (value instanceof Boolean[]) {
            return DataType.BOOL_ARRAY;
        } else if (value instanceof UUID[]) {
            return DataType.UUID_ARRAY;
        } else if (value instanceof Buffer[]) {
            return DataType.BYTEA_ARRAY;
        }
        return null;
    }

    private byte[] answer(Object value) {
        try {
            return json.writeValueAsBytes(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write the priming answer", e);
        }
    }

    private static byte[] body(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
