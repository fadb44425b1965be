package dev.exactly.destination;

import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.destination.DestinationRepository.AckResult;
import dev.exactly.destination.DestinationRepository.CompletedAck;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The fused lean ack of several partitions' completed batches ({@link DestinationRepository#ackCompletedAll})
 * against the same acks made one at a time ({@link DestinationRepository#ackCompleted}): two
 * consumer groups of one queue's four partitions, popped and acked alike step by step (two of each
 * batch's three, given out of partition order; then the third; then a batch whose lease of the
 * second partition was taken over meanwhile), and after each step the same cursors, deliveries
 * rows, figures and recorded attempts. A stale lease in the middle of a fused statement is refused
 * for its partition only.
 */
@QuarkusTest
class DestinationFusedAckTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int PARTITIONS = 4;

    @Inject
    Pool pool;

    @Inject
    DestinationRepository repository;

    /** A popped message: its offset and lease. */
    private record Popped(long offset, UUID lease) {
    }

    /** One of the two groups: its destination's name, the leases it was granted in order (to compare them by rank). */
    private final class Side {
        final String name;
        final String group;
        final boolean fused;
        final List<UUID> leases = new ArrayList<>();

        Side(String name, boolean fused) {
            this.name = name;
            this.group = Destination.GROUP_PREFIX + name;
            this.fused = fused;
        }

        List<Popped> pop(long pid, String queue, String partition, int batch) {
            List<Popped> out = new ArrayList<>();
            for (Row r : sql(pool, "SELECT \"offset\", lease_id FROM exactly.pop_partition($1, $2, $3, $4, $5, 30, "
                    + "NULL, '{}', '{}', true)", pid, queue, partition, group, batch)) {
                out.add(new Popped(r.getLong(0), r.getUUID(1)));
            }
            if (!out.isEmpty()) {
                leases.add(out.get(0).lease());
            }
            return out;
        }

        /**
         * Acks each partition's messages as completed (each batch's delivered count as given), in the
         * order given: in one fused statement, or one statement per partition.
         *
         * @return the fused statement's results (the acked counts only when one at a time)
         */
        List<AckResult> ack(List<Long> pids, List<List<Popped>> batches, List<Long> delivered) {
            List<CompletedAck> acks = new ArrayList<>();
            for (int i = 0; i < pids.size(); i++) {
                List<Popped> b = batches.get(i);
                acks.add(new CompletedAck(pids.get(i), b.get(0).lease(), b.stream().map(Popped::offset).toList(), delivered.get(i)));
            }
            if (fused) {
                return repository.ackCompletedAll(name, group, acks).await().atMost(WAIT);
            }
            List<AckResult> out = new ArrayList<>();
            for (CompletedAck a : acks) {
                int acked = repository.ackCompleted(name, a.delivered(), group, a.partitionId(), a.leaseId(), a.offsets())
                        .await().atMost(WAIT);
                out.add(new AckResult(acked, false));
            }
            return out;
        }

        String lease(UUID id) {
            return id == null ? null : "L" + leases.indexOf(id);
        }

        /** Each partition's cursor and deliveries, the figures and recorded attempts, with leases by their rank. */
        String state(List<Long> pids) {
            StringBuilder b = new StringBuilder();
            for (int p = 0; p < pids.size(); p++) {
                long pid = pids.get(p);
                GroupState.cursor(pool, b, "p" + p + " ", pid, group, this::lease);
                GroupState.deliveries(pool, b, "p" + p + " ", pid, group, this::lease);
                for (Row r : sql(pool, "SELECT \"offset\", attempts FROM exactly.destination_attempts WHERE destination = $1 "
                        + "AND partition_id = $2 ORDER BY \"offset\"", name, pid)) {
                    b.append("p").append(p).append(" attempt ").append(r.getLong(0)).append(' ').append(r.getInteger(1)).append('\n');
                }
            }
            GroupState.figures(pool, b, name);
            return b.toString();
        }
    }

    @Test
    void theFusedAckLeavesTheStateOfTheAcksOneAtATimeAndAStaleLeaseIsRefusedForItsPartitionOnly() {
        String queue = "fused-ack-" + UUID.randomUUID().toString().substring(0, 8);
        List<Long> pids = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            pushMany(queue, "p" + p, "t" + p + "-", 6);
            pids.add(partitionId(pool, queue, "p" + p));
        }
        // the acks are given in another order than the partition ids' (the statement sorts them)
        List<Integer> order = List.of(2, 0, 3, 1);
        List<Long> given = order.stream().map(pids::get).toList();
        Side single = new Side("single-" + queue, false);
        Side fused = new Side("fused-" + queue, true);
        List<Side> sides = List.of(single, fused);
        for (Side s : sides) {
            sql(pool, "INSERT INTO exactly.destination_state (name, queue) VALUES ($1, $2)", s.name, queue);
        }
        try {
            // 1. a batch of three of each partition; an attempt of the second message of p0 and p2 recorded
            Map<Side, List<List<Popped>>> first = new HashMap<>();
            for (Side s : sides) {
                List<List<Popped>> batches = new ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    batches.add(s.pop(pids.get(p), queue, "p" + p, 3));
                    assertEquals(3, batches.get(p).size());
                }
                first.put(s, batches);
                for (int p : List.of(0, 2)) {
                    repository.failedAttempt(s.name, pids.get(p), batches.get(p).get(1).offset(), 1).await().atMost(WAIT);
                }
            }
            same(single, fused, pids, "popped");

            // 2. the third and first message of each batch: the leases stay, nothing advances
            for (Side s : sides) {
                List<AckResult> r = s.ack(given, order.stream().map(p -> List.of(first.get(s).get(p).get(2), first.get(s).get(p).get(0))).toList(),
                        List.of(2L, 2L, 2L, 2L));
                if (s.fused) {
                    assertEquals(List.of(new AckResult(2, false), new AckResult(2, false), new AckResult(2, false),
                            new AckResult(2, false)), r);
                }
            }
            String partial = same(single, fused, pids, "two of three acked in each partition");
            assertTrue(partial.contains("figures 8 0 null"), partial);
            assertTrue(partial.contains("p0 attempt ") && partial.contains("p2 attempt "), partial);

            // 3. the second of each: every lease released, every cursor past its three, the recorded attempts deleted
            for (Side s : sides) {
                List<AckResult> r = s.ack(given, order.stream().map(p -> List.of(first.get(s).get(p).get(1))).toList(),
                        List.of(1L, 1L, 1L, 1L));
                if (s.fused) {
                    assertEquals(List.of(new AckResult(1, true), new AckResult(1, true), new AckResult(1, true),
                            new AckResult(1, true)), r);
                }
            }
            String released = same(single, fused, pids, "all acked");
            for (int p = 0; p < PARTITIONS; p++) {
                long o1 = first.get(fused).get(p).get(0).offset();
                assertTrue(released.contains("p" + p + " cursor next=" + (o1 + 3) + " lease=null"), released);
            }
            assertFalse(released.contains("attempt "), released);
            assertTrue(released.contains("figures 12 0 null"), released);

            // 4. the next three of each partition; the lease of p1 (the second by id) expires and another worker takes it over
            Map<Side, List<List<Popped>>> second = new HashMap<>();
            Map<Side, List<Popped>> takenOver = new HashMap<>();
            for (Side s : sides) {
                List<List<Popped>> batches = new ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    batches.add(s.pop(pids.get(p), queue, "p" + p, 3));
                    assertEquals(3, batches.get(p).size());
                }
                second.put(s, batches);
                repository.failedAttempt(s.name, pids.get(3), batches.get(3).get(0).offset(), 2).await().atMost(WAIT);
                sql(pool, "UPDATE exactly.consumer_cursors SET lease_expires_at = $3 WHERE partition_id = $1 "
                        + "AND consumer_group = $2", pids.get(1), s.group, java.time.OffsetDateTime.now().minusSeconds(1));
                takenOver.put(s, s.pop(pids.get(1), queue, "p1", 3));
                assertEquals(3, takenOver.get(s).size());
                assertNotEquals(batches.get(1).get(0).lease(), takenOver.get(s).get(0).lease());
            }
            same(single, fused, pids, "p1 taken over");

            // 5. the four batches acked, p1's under its stale lease: refused for p1 only
            for (Side s : sides) {
                List<AckResult> r = s.ack(given, order.stream().map(p -> second.get(s).get(p)).toList(), List.of(3L, 3L, 3L, 3L));
                if (s.fused) {
                    // given as p2, p0, p3, p1
                    assertEquals(List.of(new AckResult(3, true), new AckResult(3, true), new AckResult(3, true),
                            new AckResult(0, false)), r);
                }
            }
            String afterStale = same(single, fused, pids, "a fused ack with a stale lease in the middle");
            long o1 = second.get(fused).get(1).get(0).offset();
            // the leases of each side by rank: L0..L3 the first batches, L4..L7 the second, L8 p1's new holder
            assertTrue(afterStale.contains("p1 cursor next=" + o1 + " lease=L8"), afterStale);
            for (long o = o1; o < o1 + 3; o++) {
                assertFalse(afterStale.contains("p1 delivery " + o + " attempts=2 settled=true"), afterStale);
            }
            for (int p : List.of(0, 2, 3)) {
                long o = second.get(fused).get(p).get(0).offset();
                assertTrue(afterStale.contains("p" + p + " cursor next=" + (o + 3) + " lease=null"), afterStale);
            }
            assertFalse(afterStale.contains("attempt "), "the recorded attempt of p3 is deleted: " + afterStale);
            assertTrue(afterStale.contains("figures 24 0 null"), afterStale);

            // 6. p1's new holder acks them alone (a fused statement of one)
            for (Side s : sides) {
                List<AckResult> r = s.ack(List.of(pids.get(1)), List.of(takenOver.get(s)), List.of(3L));
                if (s.fused) {
                    assertEquals(List.of(new AckResult(3, true)), r);
                }
            }
            String done = same(single, fused, pids, "the new holder's ack");
            assertTrue(done.contains("p1 cursor next=" + (o1 + 3) + " lease=null"), done);
            assertTrue(done.contains("figures 27 0 null"), done);
        } finally {
            for (Side s : sides) {
                sql(pool, "DELETE FROM exactly.destination_state WHERE name = $1", s.name);
                sql(pool, "DELETE FROM exactly.destination_attempts WHERE destination = $1", s.name);
            }
        }
    }

    @Test
    void oneFusedStatementAcksTwoBatchesOfOnePartitionUnderTwoLeases() {
        String queue = "fused-twice-" + UUID.randomUUID().toString().substring(0, 8);
        pushMany(queue, "p", "t", 4);
        long pid = partitionId(pool, queue, "p");
        Side fused = new Side("fused-" + queue, true);
        sql(pool, "INSERT INTO exactly.destination_state (name, queue) VALUES ($1, $2)", fused.name, queue);
        try {
            List<Popped> stale = fused.pop(pid, queue, "p", 2);
            sql(pool, "UPDATE exactly.consumer_cursors SET lease_expires_at = $3 WHERE partition_id = $1 "
                    + "AND consumer_group = $2", pid, fused.group, java.time.OffsetDateTime.now().minusSeconds(1));
            List<Popped> current = fused.pop(pid, queue, "p", 2);
            List<AckResult> r = fused.ack(List.of(pid, pid), List.of(stale, current), List.of(2L, 2L));
            assertEquals(List.of(new AckResult(0, false), new AckResult(2, true)), r);
            String state = fused.state(List.of(pid));
            assertTrue(state.contains("cursor next=" + (stale.get(0).offset() + 2) + " lease=null"), state);
            assertTrue(state.contains("figures 4 0 null"), state);
        } finally {
            sql(pool, "DELETE FROM exactly.destination_state WHERE name = $1", fused.name);
        }
    }

    /** Asserts that both sides' states are the same (names aside) and returns it. */
    private static String same(Side single, Side fused, List<Long> pids, String step) {
        String a = single.state(pids);
        String b = fused.state(pids);
        assertEquals(a, b, step + ": the fused ack's state differs from the acks' one at a time");
        return b;
    }
}
