package dev.exactly.webhook;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.ConnectionRetry;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Data access for the deduplication window of webhook queues (exactly.queues). Before a
 * source's first stored delivery in this process, its queue gets the source's
 * {@link DedupWindow}, in one statement:
 * <ul>
 *   <li>a queue that does not exist yet is created with that window (other options at their defaults);</li>
 *   <li>an existing queue whose window is one {@link DedupWindow#replaceable()} value (the queue
 *       default, or the preset's own window) is set to it, and the change is logged;</li>
 *   <li>any other stored window was chosen by an operator through the queue API and is kept; a
 *       warning names both values.</li>
 * </ul>
 * Runs on the first delivery, not at start-up, so nothing connects before a request (the Lambda
 * shape's SnapStart snapshot holds no socket). Idempotent; safe under concurrent first deliveries.
 */
@ApplicationScoped
public class QueueWindows {

    private static final Logger LOG = Logger.getLogger(QueueWindows.class);

    // ins creates a missing queue; cur reads (and locks) an existing one; upd replaces a window
    // Exactly chose. One snapshot: cur never sees the row ins creates.
    private static final String APPLY = "WITH ins AS (INSERT INTO exactly.queues (name, dedup_window_seconds) "
            + "VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name), "
            + "cur AS (SELECT id, dedup_window_seconds AS prev FROM exactly.queues WHERE name = $1 FOR UPDATE), "
            + "upd AS (UPDATE exactly.queues q SET dedup_window_seconds = $2, updated_at = now() FROM cur "
            + "WHERE q.id = cur.id AND cur.prev <> $2 AND cur.prev = ANY ($3::int[]) RETURNING q.id) "
            + "SELECT (SELECT count(*) FROM ins) AS created, (SELECT prev FROM cur) AS prev, "
            + "(SELECT count(*) FROM upd) AS updated";

    private final Pool pool;
    private final Map<String, Boolean> applied = new ConcurrentHashMap<>();

    /** Constructor injection. */
    public QueueWindows(Pool pool) {
        this.pool = pool;
    }

    /**
     * @param source the source about to store a delivery
     * @return completes once its queue's window is settled (at once after the first success in
     *         this process, or when the source sets no window); fails with the classified
     *         database error, and is then tried again on the next delivery
     */
    public Uni<Void> ensure(WebhookSource source) {
        DedupWindow w = source.window();
        if (w == null || applied.containsKey(source.queue())) {
            return Uni.createFrom().voidItem();
        }
        Tuple args = Tuple.of(source.queue(), w.seconds(), w.replaceable().toArray(new Integer[0]));
        return ConnectionRetry.onceOnClosedConnection(() -> BorrowedConnections.execute(pool, APPLY, args))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    report(source, w, rows.iterator().next());
                    applied.put(source.queue(), Boolean.TRUE);
                    return null;
                });
    }

    private static void report(WebhookSource s, DedupWindow w, Row r) {
        String why = w.explicit() ? "exactly.webhooks.sources." + s.name() + ".window-seconds" : "the preset's window";
        Integer before = r.getInteger("prev");
        if (r.getLong("created") > 0) {
            LOG.infof("webhook source %s: created queue %s with dedupWindowSeconds %d (%s)", s.name(), s.queue(),
                    w.seconds(), why);
        } else if (r.getLong("updated") > 0) {
            LOG.infof("webhook source %s: queue %s dedupWindowSeconds %d -> %d (%s)", s.name(), s.queue(), before,
                    w.seconds(), why);
        } else if (before != null && before != w.seconds()) {
            LOG.warnf("webhook source %s: queue %s keeps dedupWindowSeconds %d, set through the queue API; %s is %d. "
                            + "A redelivery later than the stored window is stored again. To apply it: "
                            + "PATCH /api/v1/queues/%s {\"options\":{\"dedupWindowSeconds\":%d}}", s.name(), s.queue(),
                    before, why, w.seconds(), s.queue(), w.seconds());
        }
    }
}
