package dev.exactly.bench.jmh;

import dev.exactly.http.JsonBodyReader;
import dev.exactly.push.PushRequest;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Checking a valid push body's constraints, as issue 41's workload C sends it ({@code items} new
 * items of one queue, each a transactionId and a 41-byte payload): Hibernate Validator's walk over
 * the body ({@code validator}: bean validation, which the resource's {@code @Valid} parameter used
 * to run as method validation) against {@link PushRequest#valid()}, the check the resource now
 * runs first.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PushValidationBench {

    /** Items in the body. */
    @Param({"1", "100"})
    public int items;

    private Validator validator;
    private PushRequest body;

    /** Binds the body once; builds a validator as the tests do. */
    @Setup
    public void setUp() {
        validator = Validation.byDefaultProvider().configure().messageInterpolator(new ParameterMessageInterpolator())
                .buildValidatorFactory().getValidator();
        StringBuilder b = new StringBuilder("{\"items\":[");
        for (int i = 0; i < items; i++) {
            b.append(i == 0 ? "" : ",").append("{\"queue\":\"bench-c\",\"transactionId\":\"c-0-").append(i).append('-')
                    .append(UUID.randomUUID()).append("\",\"payload\":{\"order\":").append(i)
                    .append(",\"total\":12.5,\"currency\":\"EUR\"}}");
        }
        body = JsonBodyReader.read(PushRequest.class, b.append("]}").toString().getBytes(StandardCharsets.UTF_8));
        if (!body.valid() || !validator.validate(body).isEmpty()) {
            throw new IllegalStateException("the body is not valid");
        }
    }

    /** Hibernate Validator over the whole body. */
    @Benchmark
    public Set<ConstraintViolation<PushRequest>> validator() {
        return validator.validate(body);
    }

    /** The direct check. */
    @Benchmark
    public boolean valid() {
        return body.valid();
    }
}
