package dev.exactly.queue;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A queue's figures (GET /api/v1/queues/{queue}/stats), each as of one database snapshot.
 *
 * @param queue           queue name
 * @param partitions      partitions it has
 * @param messages        messages it stores (kept data; retention-purged ones are not counted)
 * @param deadLetterQueue the name of its dead-letter queue
 * @param deadLetters     messages stored in the dead-letter queue (0 when it does not exist yet)
 * @param consumerGroups  every consumer group that has read from the queue, by name
 * @param duplicates      the duplicates answered over the queue's deduplication window
 * @param destinations    the queue's destinations that have started, by name, with their delivery figures
 */
@RegisterForReflection
public record QueueStats(String queue, long partitions, long messages, String deadLetterQueue, long deadLetters,
                         List<Group> consumerGroups, Duplicates duplicates, List<Destination> destinations) {

    /**
     * A destination's delivery figures (docs/destinations.md); its backlog is that of its consumer
     * group, {@code destination:<name>}, repeated here.
     *
     * @param name                        destination name
     * @param delivered                   messages delivered
     * @param failedAttempts              attempts that did not deliver
     * @param deadLetters                 messages dead-lettered for it now
     * @param pending                     messages not yet delivered nor dead-lettered
     * @param oldestUndeliveredAgeSeconds the oldest one's age in seconds; absent when none waits
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "DestinationFigures")
    public record Destination(String name, long delivered, long failedAttempts, long deadLetters, long pending,
                              Double oldestUndeliveredAgeSeconds) {
    }

    /**
     * The pushes answered {@code duplicate} in the queue over its deduplication window (push API,
     * webhooks, redrives), as the instances have written their in-memory counts so far.
     *
     * @param atLeast       a lower bound: the duplicates answered in the minutes that start within
     *                      the window and were written by then (each instance writes its counts
     *                      every few seconds; counts an instance held when it stopped without a
     *                      shutdown, e.g. a Lambda instance reclaimed while frozen, are never written)
     * @param windowSeconds the window they were counted over: the queue's dedupWindowSeconds
     */
    @RegisterForReflection
    @Schema(name = "DuplicatesAnswered")
    public record Duplicates(long atLeast, int windowSeconds) {
    }

    /**
     * A consumer group's backlog.
     *
     * @param group                       group name
     * @param lag                         messages not yet settled for the group (not acked
     *                                    completed, not dead-lettered), over all partitions
     * @param oldestUndeliveredAt         when the oldest of them was stored; absent when none waits
     * @param oldestUndeliveredAgeSeconds its age in seconds by the database clock; absent when none waits
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "ConsumerGroupLag")
    public record Group(String group, long lag, OffsetDateTime oldestUndeliveredAt, Double oldestUndeliveredAgeSeconds) {
    }
}
