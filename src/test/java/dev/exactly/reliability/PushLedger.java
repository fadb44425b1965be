package dev.exactly.reliability;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The clients' ledger of pushes with explicit transactionIds: for every (queue, partition,
 * transactionId) what was attempted and every verdict a client was given. {@link #audit} then
 * compares it with the database.
 *
 * <p>Consistency, as a client sees it: at most one "queued" answer per id, and every answer for
 * the id (queued or duplicate) carries the one stored message's id. A client whose reply was lost
 * (connection cut after the commit, instance discarded, 503 after an unknown outcome) and who
 * retries is answered "duplicate" with the message id minted by its own first attempt: that is
 * consistent, and is how an at-least-once sender learns that its first attempt did land.
 */
final class PushLedger {

    /** An idempotency key's scope and value. */
    record Key(String queue, String partition, String transactionId) {
    }

    private static final class Entry {
        final Set<UUID> ids = ConcurrentHashMap.newKeySet();
        final AtomicInteger queued = new AtomicInteger();
        final AtomicInteger answers = new AtomicInteger();
    }

    /**
     * The audit's figures.
     *
     * @param keys         distinct ids the clients sent
     * @param answered     of them, ids that got at least one verdict
     * @param stored       rows stored for the audited queues
     * @param lost         answered ids with no stored row
     * @param duplicated   rows beyond the first for one id, plus ids answered "queued" more than once
     * @param inconsistent ids whose answers carried two message ids, or not the stored one
     * @param phantom      stored rows for ids no client sent
     * @param unanswered   ids sent but never answered (the client gave up)
     */
    record Audit(long keys, long answered, long stored, long lost, long duplicated, long inconsistent, long phantom,
                 long unanswered) {

        /** One line for logs and BENCHMARKS.md. */
        String line() {
            return String.format("ids=%d answered=%d stored=%d lost=%d duplicated=%d inconsistent=%d phantom=%d unanswered=%d",
                    keys, answered, stored, lost, duplicated, inconsistent, phantom, unanswered);
        }
    }

    private final Map<Key, Entry> entries = new ConcurrentHashMap<>();
    private final List<Key> answeredKeys = java.util.Collections.synchronizedList(new ArrayList<>());

    /** Records that a client is about to send this id (before the request leaves). */
    void attempted(Key k) {
        entries.computeIfAbsent(k, x -> new Entry());
    }

    /** Records one verdict a client was given. */
    void answered(Key k, UUID messageId, boolean queued) {
        Entry e = entries.computeIfAbsent(k, x -> new Entry());
        e.ids.add(messageId);
        if (e.answers.incrementAndGet() == 1) {
            answeredKeys.add(k);
        }
        if (queued) {
            e.queued.incrementAndGet();
        }
    }

    /** The message id the clients were told for k, or null when none yet (or when answers disagree). */
    UUID knownId(Key k) {
        Entry e = entries.get(k);
        return e == null || e.ids.size() != 1 ? null : e.ids.iterator().next();
    }

    /** An id that was answered, at random, or null when none was yet. */
    Key randomAnswered(java.util.Random rnd) {
        synchronized (answeredKeys) {
            return answeredKeys.isEmpty() ? null : answeredKeys.get(rnd.nextInt(answeredKeys.size()));
        }
    }

    /** Distinct ids sent so far. */
    int size() {
        return entries.size();
    }

    /**
     * Compares the ledger with every message stored in {@code queues}.
     *
     * @param jdbc   a connection to the service's database
     * @param queues the queues the clients pushed to
     */
    Audit audit(Connection jdbc, Collection<String> queues) throws SQLException {
        Map<Key, List<UUID>> stored = new HashMap<>();
        long rows = 0;
        try (PreparedStatement s = jdbc.prepareStatement("SELECT q.name, p.name, m.transaction_id, m.message_id "
                + "FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
                + "JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = ANY (?)")) {
            Array names = jdbc.createArrayOf("text", queues.toArray());
            s.setArray(1, names);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows++;
                    stored.computeIfAbsent(new Key(rs.getString(1), rs.getString(2), rs.getString(3)),
                            k -> new ArrayList<>()).add(rs.getObject(4, UUID.class));
                }
            }
        }
        long answered = 0;
        long lost = 0;
        long duplicated = 0;
        long inconsistent = 0;
        long unanswered = 0;
        for (Map.Entry<Key, Entry> en : entries.entrySet()) {
            Entry e = en.getValue();
            List<UUID> s = stored.getOrDefault(en.getKey(), List.of());
            duplicated += Math.max(0, s.size() - 1) + (e.queued.get() > 1 ? 1 : 0);
            if (e.answers.get() == 0) {
                unanswered++;
                continue;
            }
            answered++;
            if (s.isEmpty()) {
                lost++;
            } else if (e.ids.size() != 1 || !e.ids.contains(s.get(0))) {
                inconsistent++;
            }
        }
        long phantom = 0;
        for (Map.Entry<Key, List<UUID>> s : stored.entrySet()) {
            if (!entries.containsKey(s.getKey())) {
                phantom += s.getValue().size();
            }
        }
        return new Audit(entries.size(), answered, rows, lost, duplicated, inconsistent, phantom, unanswered);
    }
}
