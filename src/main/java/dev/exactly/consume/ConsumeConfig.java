package dev.exactly.consume;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;

/** Limits of consumption, under the {@code exactly.consume.} prefix (SmallRye Config). */
@ConfigMapping(prefix = "exactly.consume")
public interface ConsumeConfig {

    /**
     * Byte budget of one pop answer: messages are delivered in offset order while the sum of their
     * sizes in the answer (a payload counted at its base64 length, plus headers and the other
     * fields, see {@code exactly.pop} in sql/R__consume.sql) stays within it. The first message of
     * a pop is delivered even when it alone is over, so a partition always drains. Default 8 MiB;
     * the Lambda profile sets about half the 6 MB synchronous response limit, because API Gateway's
     * response carries the answer as a JSON string in which a quote or backslash takes two bytes.
     */
    @WithDefault("8388608")
    @Min(1)
    long maxAnswerBytes();
}
