package dev.exactly.destination;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;

/**
 * A destination as GET /api/v1/queues/{queue}/destinations shows it: its settings (never its
 * secret: only whether it signs) and its state.
 *
 * @param name         its name
 * @param queue        its queue
 * @param type         {@code http}, {@code sqs} or {@code eventbridge}
 * @param url          http: where messages are POSTed; absent for the other types
 * @param signed       whether requests carry a Standard Webhooks signature (http; false for the others)
 * @param queueUrl     sqs: the queue's URL; else absent
 * @param eventBus     eventbridge: the event bus's name or ARN; else absent
 * @param eventSource  eventbridge: the events' Source; else absent
 * @param detailType   eventbridge: the events' DetailType; else absent
 * @param region       sqs, eventbridge: the region set; absent when none is
 * @param endpoint     sqs, eventbridge: the service endpoint set; absent when none is
 * @param timeoutMs    longest attempt
 * @param maxAttempts  attempts per message before it is dead-lettered for this destination
 * @param backoffMs    backoff before the second attempt
 * @param backoffCapMs longest backoff
 * @param ordered      true: a partition's messages one at a time in offset order; false: a leased batch's sent at once
 * @param source       {@code configuration} or {@code api}
 * @param state        its figures
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DestinationView(String name, String queue, String type, String url, boolean signed, String queueUrl,
                              String eventBus, String eventSource, String detailType, String region, String endpoint,
                              int timeoutMs, int maxAttempts, int backoffMs, int backoffCapMs, boolean ordered, String source,
                              State state) {

    /**
     * A destination's figures.
     *
     * @param paused                      whether it is paused (nothing is sent to it)
     * @param delivered                   messages delivered (a 2xx answer)
     * @param pending                     messages stored since it started and not yet delivered nor dead-lettered
     * @param oldestUndeliveredAt         when the oldest of them was stored; absent when none waits
     * @param oldestUndeliveredAgeSeconds its age in seconds; absent when none waits
     * @param failedAttempts              attempts that did not deliver
     * @param deadLetters                 messages dead-lettered for this destination after its last attempt
     * @param lastError                   the last failed attempt's error; absent when none failed
     * @param lastErrorAt                 when that attempt ended; absent when none failed
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record State(boolean paused, long delivered, long pending, OffsetDateTime oldestUndeliveredAt, Double oldestUndeliveredAgeSeconds,
                        long failedAttempts, long deadLetters, String lastError, OffsetDateTime lastErrorAt) {
    }

    /** A list of destinations, the answer to GET /api/v1/queues/{queue}/destinations. */
    @RegisterForReflection
    public record Listing(java.util.List<DestinationView> destinations) {
    }
}
