package dev.exactly.webhook;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.config.ConfigProvider;

/** Reads exactly.messages of the running test application's database directly (JDBC), to count what was stored. */
public final class StoredRows {

    /**
     * One stored message row.
     *
     * @param messageId     message id
     * @param queue         queue name
     * @param partition     partition name
     * @param transactionId the key
     * @param payload       stored bytes
     * @param contentType   media type
     * @param headers       kept headers (jsonb as text)
     */
    public record Row(String messageId, String queue, String partition, String transactionId, byte[] payload,
                      String contentType, String headers) {
    }

    private static final String SELECT = "SELECT m.message_id::text, q.name, p.name, m.transaction_id, m.payload, "
            + "m.content_type, m.headers::text FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
            + "JOIN exactly.queues q ON q.id = p.queue_id ";

    private StoredRows() {
    }

    /** Every message row, for counting and comparing. */
    public static long countAll() {
        return count("SELECT count(*) FROM exactly.messages");
    }

    /** The rows of one queue, in offset order per partition. */
    public static List<Row> inQueue(String queue) {
        return query(SELECT + "WHERE q.name = ? ORDER BY p.name, m.\"offset\"", queue);
    }

    /** The rows with this message id (0 or 1). */
    public static List<Row> byMessageId(String id) {
        return query(SELECT + "WHERE m.message_id = ?::uuid", id);
    }

    /**
     * Moves one stored message and its transaction hash {@code seconds} into the past, as if it had
     * been stored that long ago (the probe compares created_at with the window).
     */
    public static void age(String messageId, long seconds) {
        String hashes = "UPDATE exactly.txn_hashes t SET created_at = t.created_at - make_interval(secs => ?) "
                + "FROM exactly.messages m WHERE m.message_id = ?::uuid AND t.partition_id = m.partition_id "
                + "AND t.\"offset\" = m.\"offset\"";
        String messages = "UPDATE exactly.messages SET created_at = created_at - make_interval(secs => ?) "
                + "WHERE message_id = ?::uuid";
        try (Connection c = connect()) {
            for (String sql : new String[] {hashes, messages}) {
                try (PreparedStatement s = c.prepareStatement(sql)) {
                    s.setDouble(1, seconds);
                    s.setString(2, messageId);
                    if (s.executeUpdate() != 1) {
                        throw new IllegalStateException("expected one row for message " + messageId + ": " + sql);
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long count(String sql) {
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(sql); ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Row> query(String sql, String arg) {
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, arg);
            List<Row> out = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(new Row(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getBytes(5),
                            r.getString(6), r.getString(7)));
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Connection connect() throws SQLException {
        // the application's own datasource (set by PostgresResource), read from its config
        String url = ConfigProvider.getConfig().getValue("quarkus.datasource.reactive.url", String.class);
        return DriverManager.getConnection("jdbc:" + url, "postgres", "");
    }
}
