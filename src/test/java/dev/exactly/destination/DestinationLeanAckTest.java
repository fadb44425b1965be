package dev.exactly.destination;

import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.consume.AckCommand;
import dev.exactly.consume.AckStatus;
import dev.exactly.consume.ConsumeRepository;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The lean ack of a destination's completed batch ({@link DestinationRepository#ackCompleted},
 * exactly.ack_completed) against the general one ({@link DestinationRepository#ackAndCount},
 * exactly.ack_partition): two consumer groups of one partition, one acked by each, popped and acked
 * alike step by step (a batch acked out of order and in two parts, a repeated ack after the release,
 * a lease taken over after it expired and then acked by its old holder, the new holder's ack), and
 * after each step the same state: cursor, deliveries rows, figures and recorded attempts. A stale
 * lease settles nothing, releases nothing and moves nothing.
 */
@QuarkusTest
class DestinationLeanAckTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Inject
    Pool pool;

    @Inject
    ConsumeRepository consume;

    @Inject
    DestinationRepository repository;

    /** A popped message: its offset, id and lease. */
    private record Popped(long offset, UUID messageId, UUID lease) {
    }

    /** One of the two groups: its destination's name, the leases it was granted in order (to compare them by rank). */
    private final class Side {
        final String name;
        final String group;
        final boolean lean;
        final List<UUID> leases = new ArrayList<>();

        Side(String name, boolean lean) {
            this.name = name;
            this.group = Destination.GROUP_PREFIX + name;
            this.lean = lean;
        }

        List<Popped> pop(long pid, String queue, int batch) {
            List<Popped> out = new ArrayList<>();
            for (Row r : sql(pool, "SELECT \"offset\", message_id, lease_id FROM exactly.pop_partition($1, $2, 'p', $3, $4, 30, "
                    + "NULL, '{}', '{}', true)", pid, queue, group, batch)) {
                out.add(new Popped(r.getLong(0), r.getUUID(1), r.getUUID(2)));
            }
            if (!out.isEmpty()) {
                leases.add(out.get(0).lease());
            }
            return out;
        }

        /** Acks those messages as completed, delivered counted as given, by this side's path. */
        void ack(long pid, String queue, List<Popped> messages, long delivered) {
            List<Long> offsets = messages.stream().map(Popped::offset).toList();
            if (lean) {
                repository.ackCompleted(name, delivered, group, pid, messages.get(0).lease(), offsets).await().atMost(WAIT);
            } else {
                List<AckCommand> acks = messages.stream().map(m -> new AckCommand(queue, "p", group, m.lease(), null,
                        m.messageId(), AckStatus.COMPLETED, null)).toList();
                repository.ackAndCount(consume, acks, name, delivered, 0, null, null, pid, offsets).await().atMost(WAIT);
            }
        }

        String lease(UUID id) {
            return id == null ? null : "L" + leases.indexOf(id);
        }

        /** Cursor, deliveries, figures and recorded attempts, with leases by their rank. */
        String state(long pid) {
            StringBuilder b = new StringBuilder();
            GroupState.cursor(pool, b, "", pid, group, this::lease);
            GroupState.deliveries(pool, b, "", pid, group, this::lease);
            GroupState.figures(pool, b, name);
            for (Row r : sql(pool, "SELECT \"offset\", attempts FROM exactly.destination_attempts WHERE destination = $1 "
                    + "ORDER BY partition_id, \"offset\"", name)) {
                b.append("attempt ").append(r.getLong(0)).append(' ').append(r.getInteger(1)).append('\n');
            }
            return b.toString();
        }
    }

    private static Popped at(List<Popped> batch, int i) {
        return batch.get(i);
    }

    @Test
    void theLeanAckLeavesTheStateTheGeneralAckLeavesAndAStaleLeaseSettlesNothing() {
        String queue = "lean-ack-" + UUID.randomUUID().toString().substring(0, 8);
        pushMany(queue, "p", "t", 6);
        long pid = partitionId(pool, queue, "p");
        Side general = new Side("general-" + queue, false);
        Side lean = new Side("lean-" + queue, true);
        List<Side> sides = List.of(general, lean);
        create(sides, queue);
        try {
            // 1. a batch of three; an attempt of its second message recorded (it failed once under an earlier lease)
            Map<Side, List<Popped>> first = new java.util.HashMap<>();
            for (Side s : sides) {
                first.put(s, s.pop(pid, queue, 3));
                assertEquals(3, first.get(s).size());
                repository.failedAttempt(s.name, pid, at(first.get(s), 1).offset(), 1).await().atMost(WAIT);
            }
            long o1 = at(first.get(lean), 0).offset();
            same(general, lean, pid, "popped");

            // 2. its third and first message acked (an unordered destination's order): the lease stays, nothing advances
            for (Side s : sides) {
                s.ack(pid, queue, List.of(at(first.get(s), 2), at(first.get(s), 0)), 2);
            }
            String partial = same(general, lean, pid, "two of three acked");
            assertTrue(partial.contains("cursor next=" + o1 + " lease=L0"), partial);

            // 3. the second: the lease is released, the cursor moves past the three, the recorded attempt is deleted
            for (Side s : sides) {
                s.ack(pid, queue, List.of(at(first.get(s), 1)), 1);
            }
            String released = same(general, lean, pid, "all three acked");
            assertTrue(released.contains("cursor next=" + (o1 + 3) + " lease=null"), released);
            assertTrue(released.contains("prev=L0 " + o1 + ".." + (o1 + 2)), released);
            assertFalse(released.contains("attempt "), released);
            assertTrue(released.contains("figures 3 0 null"), released);

            // 4. the same acks again under the released lease: nothing changes
            for (Side s : sides) {
                s.ack(pid, queue, first.get(s), 0);
            }
            assertEquals(released, same(general, lean, pid, "a repeated ack"));

            // 5. the next three popped, the lease expires and another worker takes the partition over
            Map<Side, List<Popped>> stale = new java.util.HashMap<>();
            for (Side s : sides) {
                stale.put(s, s.pop(pid, queue, 3));
                assertEquals(3, stale.get(s).size());
                sql(pool, "UPDATE exactly.consumer_cursors SET lease_expires_at = $3 WHERE partition_id = $1 "
                        + "AND consumer_group = $2", pid, s.group, java.time.OffsetDateTime.now().minusSeconds(1));
            }
            Map<Side, List<Popped>> taken = new java.util.HashMap<>();
            for (Side s : sides) {
                taken.put(s, s.pop(pid, queue, 3));
                assertEquals(3, taken.get(s).size());
                assertNotEquals(stale.get(s).get(0).lease(), taken.get(s).get(0).lease());
            }
            String takenOver = same(general, lean, pid, "taken over");

            // 6. the old holder acks its batch: refused, nothing settled, released or moved
            for (Side s : sides) {
                s.ack(pid, queue, stale.get(s), 3);
            }
            String afterStale = same(general, lean, pid, "a stale lease's ack");
            assertEquals(takenOver.replace("figures 3 0", "figures 6 0"), afterStale,
                    "a stale lease's ack changes only the figures (the deliveries were made)");
            assertTrue(afterStale.contains("cursor next=" + (o1 + 3) + " lease=L2"), afterStale);
            assertFalse(afterStale.contains("settled=true"), afterStale);
            assertEquals(0, repository.ackCompleted(lean.name, 0, lean.group, pid, stale.get(lean).get(0).lease(),
                    stale.get(lean).stream().map(Popped::offset).toList()).await().atMost(WAIT));

            // 7. the new holder acks them: each message's second delivery, the lease released, the cursor at the end
            for (Side s : sides) {
                s.ack(pid, queue, taken.get(s), 3);
            }
            String done = same(general, lean, pid, "the new holder's ack");
            assertTrue(done.contains("cursor next=" + (o1 + 6) + " lease=null"), done);
            assertTrue(done.contains("figures 9 0 null"), done);
        } finally {
            drop(sides);
        }
    }

    /**
     * A batch acked whole (the cursor at the lease's first offset, every offset acked, nothing recorded
     * from there on) takes exactly.ack_completed's short path; its end state must be the general ack's:
     * a batch in order, one in another order with an offset repeated, a batch of one, one with a
     * recorded attempt, and one whose first message was purged while it was leased (the long path).
     */
    @Test
    void aBatchAckedWholeLeavesTheStateTheGeneralAckLeaves() {
        String queue = "lean-whole-" + UUID.randomUUID().toString().substring(0, 8);
        pushMany(queue, "p", "t", 12);
        long pid = partitionId(pool, queue, "p");
        Side general = new Side("general-" + queue, false);
        Side lean = new Side("lean-" + queue, true);
        List<Side> sides = List.of(general, lean);
        create(sides, queue);
        try {
            long o1 = -1;
            // 1. three in order
            for (Side s : sides) {
                List<Popped> b = s.pop(pid, queue, 3);
                assertEquals(3, b.size());
                o1 = b.get(0).offset();
                s.ack(pid, queue, b, 3);
            }
            String inOrder = same(general, lean, pid, "a batch of three acked whole");
            assertTrue(inOrder.contains("cursor next=" + (o1 + 3) + " lease=null"), inOrder);
            assertTrue(inOrder.contains("prev=L0 " + o1 + ".." + (o1 + 2) + " available=true"), inOrder);
            assertFalse(inOrder.contains("delivery "), inOrder);

            // 2. three more, acked in another order with one offset twice
            for (Side s : sides) {
                List<Popped> b = s.pop(pid, queue, 3);
                s.ack(pid, queue, List.of(b.get(2), b.get(0), b.get(1), b.get(0)), 3);
            }
            assertTrue(same(general, lean, pid, "out of order, one twice").contains("cursor next=" + (o1 + 6) + " lease=null"));

            // 3. a batch of one, with an attempt recorded for it (deleted with the ack)
            for (Side s : sides) {
                List<Popped> b = s.pop(pid, queue, 1);
                repository.failedAttempt(s.name, pid, b.get(0).offset(), 1).await().atMost(WAIT);
                s.ack(pid, queue, b, 1);
            }
            String one = same(general, lean, pid, "a batch of one with a recorded attempt");
            assertTrue(one.contains("cursor next=" + (o1 + 7) + " lease=null"), one);
            assertFalse(one.contains("attempt "), one);

            // 4. a batch whose first message is purged while it is leased: the general path's rules apply
            Map<Side, List<Popped>> purged = new java.util.HashMap<>();
            for (Side s : sides) {
                purged.put(s, s.pop(pid, queue, 3));
            }
            sql(pool, "DELETE FROM exactly.messages WHERE partition_id = $1 AND \"offset\" = $2", pid, o1 + 7);
            sql(pool, "UPDATE exactly.partitions SET data_start = $2 WHERE id = $1", pid, o1 + 8);
            for (Side s : sides) {
                s.ack(pid, queue, purged.get(s), 3);
            }
            String afterPurge = same(general, lean, pid, "a batch whose first message was purged");
            assertTrue(afterPurge.contains("cursor next=" + (o1 + 10) + " lease=null"), afterPurge);
            assertTrue(afterPurge.contains("figures 10 0 null"), afterPurge);
        } finally {
            drop(sides);
        }
    }

    @Test
    void aLeanAckAnswersHowManyItSettled() {
        String queue = "lean-count-" + UUID.randomUUID().toString().substring(0, 8);
        pushMany(queue, "p", "t", 2);
        long pid = partitionId(pool, queue, "p");
        Side lean = new Side("lean-" + queue, true);
        create(List.of(lean), queue);
        try {
            List<Popped> batch = lean.pop(pid, queue, 2);
            List<Long> offsets = batch.stream().map(Popped::offset).toList();
            UUID leaseId = batch.get(0).lease();
            assertEquals(1, repository.ackCompleted(lean.name, 1, lean.group, pid, leaseId, offsets.subList(0, 1)).await().atMost(WAIT));
            assertEquals(1, repository.ackCompleted(lean.name, 1, lean.group, pid, leaseId, offsets).await().atMost(WAIT),
                    "the first one again is a replay");
            assertEquals(0, repository.ackCompleted(lean.name, 0, lean.group, pid, leaseId, offsets).await().atMost(WAIT),
                    "after the release");
        } finally {
            drop(List.of(lean));
        }
    }

    /** Gives each side's destination its figures' row. */
    private void create(List<Side> sides, String queue) {
        for (Side s : sides) {
            sql(pool, "INSERT INTO exactly.destination_state (name, queue) VALUES ($1, $2)", s.name, queue);
        }
    }

    /** Removes what the sides' destinations left: their figures and recorded attempts. */
    private void drop(List<Side> sides) {
        for (Side s : sides) {
            sql(pool, "DELETE FROM exactly.destination_state WHERE name = $1", s.name);
            sql(pool, "DELETE FROM exactly.destination_attempts WHERE destination = $1", s.name);
        }
    }

    /** Asserts that both sides' states are the same (names aside) and returns it. */
    private static String same(Side general, Side lean, long pid, String step) {
        String a = general.state(pid);
        String b = lean.state(pid);
        assertEquals(a, b, step + ": the lean ack's state differs from the general ack's");
        return b;
    }
}
