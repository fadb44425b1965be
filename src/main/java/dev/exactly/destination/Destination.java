package dev.exactly.destination;

import java.net.URI;

/**
 * A destination as delivery uses it, from the configuration or the API.
 *
 * @param name          its name
 * @param queue         the queue whose messages it receives
 * @param type          {@code http}, {@code sqs} or {@code eventbridge}
 * @param url           http: where messages are POSTed; null for the other types
 * @param signingSecret http: the Standard Webhooks secret ({@code whsec_…}), or null: unsigned
 * @param timeoutMs     longest attempt, in milliseconds
 * @param maxAttempts   attempts per message before it is dead-lettered for this destination
 * @param backoffMs     backoff before the second attempt, in milliseconds (doubling after)
 * @param backoffCapMs  longest backoff, in milliseconds
 * @param configured    true when it comes from the application's configuration
 * @param aws           sqs and eventbridge: where and how to send; null for http
 * @param ordered       true: one message of a partition in flight at a time, in offset order; false:
 *                      the messages of a leased batch are sent at once, each retried on its own
 */
public record Destination(String name, String queue, String type, URI url, String signingSecret, int timeoutMs,
                          int maxAttempts, int backoffMs, int backoffCapMs, boolean configured, Aws aws, boolean ordered) {

    /** The prefix of a destination's consumer group. */
    public static final String GROUP_PREFIX = "destination:";

    /**
     * The settings of an AWS destination (sqs or eventbridge). Credentials are not among them: the
     * AWS SDK's default credentials provider chain supplies them (in Lambda, the function's role).
     *
     * @param queueUrl   sqs: the queue's URL ({@code .fifo} at the end: a FIFO queue); else null
     * @param eventBus   eventbridge: the event bus's name or ARN; else null
     * @param source     eventbridge: the events' {@code Source}; else null
     * @param detailType eventbridge: the events' {@code DetailType}; else null
     * @param region     the AWS region, or null: the queue URL's or the bus ARN's, else the SDK's default
     * @param endpoint   the service endpoint instead of AWS's regional one (a VPC endpoint, a local
     *                   server), or null
     */
    public record Aws(String queueUrl, String eventBus, String source, String detailType, String region, String endpoint) {
    }

    /** An http destination (no AWS settings), ordered. */
    public Destination(String name, String queue, String type, URI url, String signingSecret, int timeoutMs,
                       int maxAttempts, int backoffMs, int backoffCapMs, boolean configured) {
        this(name, queue, type, url, signingSecret, timeoutMs, maxAttempts, backoffMs, backoffCapMs, configured, null, true);
    }

    /** @return this destination with attempts of at most {@code ms} milliseconds (itself when its timeoutMs is not longer) */
    public Destination withTimeoutMs(int ms) {
        return ms >= timeoutMs ? this : new Destination(name, queue, type, url, signingSecret, ms, maxAttempts, backoffMs, backoffCapMs,
                configured, aws, ordered);
    }

    /** @return the consumer group it is read as: {@code destination:<name>} */
    public String group() {
        return GROUP_PREFIX + name;
    }

    /** @return where it sends, for a log line: the URL, the queue URL or the event bus */
    public String target() {
        if (aws == null) {
            return String.valueOf(url);
        }
        return aws.queueUrl() != null ? aws.queueUrl() : "event bus " + aws.eventBus();
    }

    /** No secret in a log line or an exception message. */
    @Override
    public String toString() {
        return "Destination[" + name + " -> " + queue + ", " + type + " " + target() + (signingSecret != null ? ", signed" : "")
                + ", timeout " + timeoutMs + " ms, " + maxAttempts + " attempts" + (ordered ? "" : ", unordered") + "]";
    }
}
