package dev.exactly.destination;

import dev.exactly.http.Bounds;
import dev.exactly.http.Checked;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.function.BiConsumer;

/**
 * The body of PUT /api/v1/queues/{queue}/destinations/{name}:
 * {@code {"type"?,"url"?,"signingSecret"?,"queueUrl"?,"eventBus"?,"eventSource"?,"detailType"?,"region"?,
 * "endpoint"?,"timeoutMs"?,"maxAttempts"?,"backoffMs"?,"backoffCapMs"?,"ordered"?}}. What is left out takes the
 * default a configured destination has. A field of another type than {@code type} is refused.
 *
 * @param type          {@code http} (the default), {@code sqs} or {@code eventbridge}
 * @param url           http: where messages are POSTed (http or https; an ASCII host name or an IP literal; a
 *                      port, if any, 1 to 65535); required
 * @param signingSecret http: Standard Webhooks secret, {@code whsec_} + standard base64 with its padding of 24 to 64
 *                      bytes; absent: unsigned
 * @param queueUrl      sqs: the queue's URL; required ({@code .fifo} at the end: a FIFO queue)
 * @param eventBus      eventbridge: the event bus's name or ARN (default {@code default})
 * @param eventSource   eventbridge: the events' Source, 1 to 256 characters (default {@code exactly})
 * @param detailType    eventbridge: the events' DetailType, 1 to 128 characters (default {@code exactly.message})
 * @param region        sqs, eventbridge: the AWS region (default: the queue URL's or the ARN's, else the SDK's)
 * @param endpoint      sqs, eventbridge: the service endpoint instead of AWS's regional one (scheme, host, port)
 * @param timeoutMs     longest attempt, 1 to 60000 (default 10000)
 * @param maxAttempts   attempts per message before it is dead-lettered for this destination, 1 to 100 (default 10)
 * @param backoffMs     backoff before the second attempt, doubling after, 1 to 3600000 (default 1000)
 * @param backoffCapMs  longest backoff, 1 to 3600000, not below backoffMs (default 300000)
 * @param ordered       true (the default): a partition's messages one at a time in offset order; false: a
 *                      leased batch's messages sent at once, each retried on its own
 */
@RegisterForReflection
@Checked
public record DestinationInput(String type, String url, String signingSecret, String queueUrl, String eventBus,
                               String eventSource, String detailType, String region, String endpoint,
                               @Bounds(min = 1, max = DestinationRules.MAX_TIMEOUT_MS) Integer timeoutMs,
                               @Bounds(min = 1, max = DestinationRules.MAX_ATTEMPTS) Integer maxAttempts,
                               @Bounds(min = 1, max = DestinationRules.MAX_BACKOFF_MS) Integer backoffMs,
                               @Bounds(min = 1, max = DestinationRules.MAX_BACKOFF_MS) Integer backoffCapMs,
                               Boolean ordered)
        implements Checked.Rules {

    /** The defaults of what was not given (those of a configured destination). */
    public DestinationInput {
        type = type == null ? DestinationRules.HTTP : type;
        if (DestinationRules.EVENTBRIDGE.equals(type)) {
            eventBus = eventBus == null ? DestinationRules.DEFAULT_EVENT_BUS : eventBus;
            eventSource = eventSource == null ? DestinationRules.DEFAULT_SOURCE : eventSource;
            detailType = detailType == null ? DestinationRules.DEFAULT_DETAIL_TYPE : detailType;
        }
        timeoutMs = timeoutMs == null ? 10_000 : timeoutMs;
        maxAttempts = maxAttempts == null ? 10 : maxAttempts;
        backoffMs = backoffMs == null ? 1_000 : backoffMs;
        backoffCapMs = backoffCapMs == null ? 300_000 : backoffCapMs;
        ordered = ordered == null ? Boolean.TRUE : ordered;
    }

    /** @return its AWS settings, or null for an http destination */
    public Destination.Aws aws() {
        return DestinationRules.HTTP.equals(type) ? null
                : new Destination.Aws(queueUrl, eventBus, eventSource, detailType, region, endpoint);
    }

    @Override
    public void check(BiConsumer<String, String> broken) {
        DestinationRules.check(null, type, url, signingSecret, timeoutMs, maxAttempts, backoffMs, backoffCapMs,
                new Destination.Aws(queueUrl, eventBus, eventSource, detailType, region, endpoint), null, broken);
    }
}
