package dev.exactly.queue;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * One page of GET /api/v1/overview: the figures an operator reads first, per queue.
 *
 * @param queues the queues in name order
 * @param next   the cursor to pass as {@code after} for the next page; absent on the last page
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record QueueOverview(List<Entry> queues, String next) {

    /**
     * A queue's figures.
     *
     * @param queue                       queue name
     * @param partitions                  partitions it has
     * @param messages                    messages it stores (kept data)
     * @param consumerGroups              lag and oldest undelivered message per consumer group that
     *                                    has read from it, by group name
     * @param oldestUndeliveredAgeSeconds the oldest of the groups' oldest undelivered ages, seconds;
     *                                    absent when no group has one waiting
     * @param deadLetterQueue             its dead-letter queue's name
     * @param deadLetters                 messages stored in its dead-letter queue
     * @param deadLettersNotRedriven      of those, the ones not redriven yet
     * @param duplicates                  the duplicates answered over its deduplication window
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "QueueOverviewEntry")
    public record Entry(String queue, long partitions, long messages, List<QueueStats.Group> consumerGroups,
                        Double oldestUndeliveredAgeSeconds, String deadLetterQueue, long deadLetters,
                        long deadLettersNotRedriven, QueueStats.Duplicates duplicates) {
    }
}
