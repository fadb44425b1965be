package dev.exactly.destination;

import java.net.URI;

/**
 * A destination as delivery uses it, from the configuration or the API.
 *
 * @param name          its name
 * @param queue         the queue whose messages it receives
 * @param type          {@code http}
 * @param url           where messages are POSTed
 * @param signingSecret the Standard Webhooks secret ({@code whsec_…}), or null: unsigned
 * @param timeoutMs     longest attempt, in milliseconds
 * @param maxAttempts   attempts per message before it is dead-lettered for this destination
 * @param backoffMs     backoff before the second attempt, in milliseconds (doubling after)
 * @param backoffCapMs  longest backoff, in milliseconds
 * @param configured    true when it comes from the application's configuration
 */
public record Destination(String name, String queue, String type, URI url, String signingSecret, int timeoutMs,
                          int maxAttempts, int backoffMs, int backoffCapMs, boolean configured) {

    /** The prefix of a destination's consumer group. */
    public static final String GROUP_PREFIX = "destination:";

    /** @return the consumer group it is read as: {@code destination:<name>} */
    public String group() {
        return GROUP_PREFIX + name;
    }

    /** No secret in a log line or an exception message. */
    @Override
    public String toString() {
        return "Destination[" + name + " -> " + queue + ", " + type + " " + url + (signingSecret != null ? ", signed" : "")
                + ", timeout " + timeoutMs + " ms, " + maxAttempts + " attempts]";
    }
}
