package dev.exactly.destination;

import dev.exactly.http.Checked;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.NotNull;
import java.util.function.BiConsumer;

/**
 * The body of PUT /api/v1/queues/{queue}/destinations/{name}:
 * {@code {"type"?,"url","signingSecret"?,"timeoutMs"?,"maxAttempts"?,"backoffMs"?,"backoffCapMs"?}}.
 * What is left out takes the default a configured destination has.
 *
 * @param type          {@code http} (the default and the only type built so far)
 * @param url           where messages are POSTed (http or https)
 * @param signingSecret Standard Webhooks secret, {@code whsec_} + base64 of 24 to 64 bytes; absent: unsigned
 * @param timeoutMs     longest attempt, 1 to 60000 (default 10000)
 * @param maxAttempts   attempts per message before it is dead-lettered for this destination, 1 to 100 (default 10)
 * @param backoffMs     backoff before the second attempt, doubling after, 1 to 3600000 (default 1000)
 * @param backoffCapMs  longest backoff, 1 to 3600000, not below backoffMs (default 300000)
 */
@RegisterForReflection
@Checked
public record DestinationInput(String type, @NotNull(message = "is required") String url, String signingSecret,
                               Integer timeoutMs, Integer maxAttempts, Integer backoffMs, Integer backoffCapMs)
        implements Checked.Rules {

    /** The defaults of what was not given (those of a configured destination). */
    public DestinationInput {
        type = type == null ? DestinationRules.HTTP : type;
        timeoutMs = timeoutMs == null ? 10_000 : timeoutMs;
        maxAttempts = maxAttempts == null ? 10 : maxAttempts;
        backoffMs = backoffMs == null ? 1_000 : backoffMs;
        backoffCapMs = backoffCapMs == null ? 300_000 : backoffCapMs;
    }

    @Override
    public void check(BiConsumer<String, String> broken) {
        if (url == null) {
            return; // reported by @NotNull
        }
        DestinationRules.check(null, type, url, signingSecret, timeoutMs, maxAttempts, backoffMs, backoffCapMs, null, broken);
    }
}
