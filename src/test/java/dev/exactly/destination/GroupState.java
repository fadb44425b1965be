package dev.exactly.destination;

import static dev.exactly.consume.ConsumeFixtures.sql;

import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import java.util.UUID;
import java.util.function.Function;

/**
 * A destination's consumer-group state as text lines, for tests that ack one group one way and
 * another group another way and compare what each left: the cursor, the deliveries rows and the
 * destination's figures, with lease ids written by a name the caller gives (their rank), so that
 * two groups' states compare equal when they went through the same steps.
 */
final class GroupState {

    private GroupState() {
    }

    /** Appends the group's cursor on partition {@code pid}, each line led by {@code prefix}. */
    static void cursor(Pool pool, StringBuilder b, String prefix, long pid, String group, Function<UUID, String> lease) {
        for (Row r : sql(pool, "SELECT next_offset, lease_id, lease_from, lease_to, prev_lease_id, prev_lease_from, "
                + "prev_lease_to, available_at = '-infinity' AS available FROM exactly.consumer_cursors "
                + "WHERE partition_id = $1 AND consumer_group = $2", pid, group)) {
            b.append(prefix).append("cursor next=").append(r.getLong(0)).append(" lease=").append(lease.apply(r.getUUID(1)))
                    .append(' ').append(r.getLong(2)).append("..").append(r.getLong(3))
                    .append(" prev=").append(lease.apply(r.getUUID(4))).append(' ').append(r.getLong(5)).append("..")
                    .append(r.getLong(6)).append(" available=").append(r.getBoolean(7)).append('\n');
        }
    }

    /** Appends the group's deliveries rows on partition {@code pid} in offset order, each line led by {@code prefix}. */
    static void deliveries(Pool pool, StringBuilder b, String prefix, long pid, String group, Function<UUID, String> lease) {
        for (Row r : sql(pool, "SELECT \"offset\", attempts, settled, acked_lease, last_outcome, last_error, dead_letter_id "
                + "FROM exactly.deliveries WHERE partition_id = $1 AND consumer_group = $2 ORDER BY \"offset\"", pid, group)) {
            b.append(prefix).append("delivery ").append(r.getLong(0)).append(" attempts=").append(r.getInteger(1))
                    .append(" settled=").append(r.getBoolean(2)).append(" acked=").append(lease.apply(r.getUUID(3)))
                    .append(' ').append(r.getString(4)).append(' ').append(r.getString(5)).append(' ')
                    .append(r.getUUID(6)).append('\n');
        }
    }

    /** Appends the destination's figures: delivered, failed attempts, last error. */
    static void figures(Pool pool, StringBuilder b, String name) {
        for (Row r : sql(pool, "SELECT delivered, failed_attempts, last_error FROM exactly.destination_state WHERE name = $1", name)) {
            b.append("figures ").append(r.getLong(0)).append(' ').append(r.getLong(1)).append(' ').append(r.getString(2))
                    .append('\n');
        }
    }
}
