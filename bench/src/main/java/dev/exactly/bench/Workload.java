package dev.exactly.bench;

import java.util.SplittableRandom;

/**
 * The shape of a load: how many items a request carries, over how many partitions of one queue,
 * and which fraction of the items repeat a transactionId already stored (a store-level duplicate).
 *
 * @param queue            queue name (each scenario uses a queue of its own)
 * @param itemsPerRequest  items in one request (1 to 1000)
 * @param partitions       partitions the items spread over, uniformly ("p0" … "p{n-1}"); 0: the items
 *                         name no partition (Default, or the key's partition on a queue that
 *                         spreads by key)
 * @param duplicateRatio   fraction of items (0 to 1) that repeat a transactionId this client
 *                         already had answered, in the same partition
 * @param payloadBytes     approximate size of each item's JSON payload, in bytes
 * @param pinned           true: client c pushes to partition "p{c mod partitions}" only (one
 *                         producer per partition when there are as many clients as partitions)
 */
public record Workload(String queue, int itemsPerRequest, int partitions, double duplicateRatio, int payloadBytes,
                       boolean pinned) {

    /** A workload whose clients pick partitions at random. */
    public Workload(String queue, int itemsPerRequest, int partitions, double duplicateRatio, int payloadBytes) {
        this(queue, itemsPerRequest, partitions, duplicateRatio, payloadBytes, false);
    }

    /** A workload with 64-byte payloads. */
    public static Workload of(String queue, int itemsPerRequest, int partitions, double duplicateRatio) {
        return new Workload(queue, itemsPerRequest, partitions, duplicateRatio, 64);
    }

    /** A generator for one sequential client (not thread-safe; one per concurrent request chain). */
    public Generator generator(String clientTag, long seed) {
        return new Generator(this, clientTag, seed, 0);
    }

    /** A generator for client number {@code client} (its partition when {@link #pinned}). */
    public Generator generator(String clientTag, long seed, int client) {
        return new Generator(this, clientTag, seed, client);
    }

    /** The push API body for a batch: {"items":[{"queue","partition","transactionId","payload"}…]}. */
    public String json(Batch b) {
        String payload = b.payload();
        StringBuilder sb = new StringBuilder(32 + b.size() * (64 + payload.length()));
        sb.append("{\"items\":[");
        for (int i = 0; i < b.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append("{\"queue\":\"").append(queue);
            if (b.partitions()[i] != null) {
                sb.append("\",\"partition\":\"").append(b.partitions()[i]);
            }
            sb.append("\",\"transactionId\":\"").append(b.transactionIds()[i])
                    .append("\",\"payload\":").append(payload).append('}');
        }
        return sb.append("]}").toString();
    }

    /**
     * One request's items: parallel arrays of partition names and transactionIds, and the JSON
     * payload every item carries.
     */
    public record Batch(String[] partitions, String[] transactionIds, String payload) {
        /** Number of items. */
        public int size() {
            return partitions.length;
        }
    }

    /**
     * Produces a client's requests. Fresh transactionIds are {@code clientTag-sequence}; a
     * duplicate repeats a (partition, transactionId) from this client's answered requests, drawn
     * uniformly from the last {@value #HISTORY} it remembers.
     */
    public static final class Generator {

        static final int HISTORY = 4096;

        private final Workload w;
        private final String tag;
        private final SplittableRandom random;
        private final String[] histPartition = new String[HISTORY];
        private final String[] histTxn = new String[HISTORY];
        private final String payload;
        private final String pinnedPartition;
        private long seq;
        private int histSize;
        private int histNext;

        Generator(Workload w, String tag, long seed, int client) {
            this.w = w;
            this.pinnedPartition = w.pinned() && w.partitions() > 0 ? "p" + (client % w.partitions()) : null;
            this.tag = tag;
            this.random = new SplittableRandom(seed);
            StringBuilder p = new StringBuilder("{\"n\":1,\"pad\":\"");
            while (p.length() < w.payloadBytes() - 2) {
                p.append('x');
            }
            this.payload = p.append("\"}").toString();
        }

        /** The next request's items. */
        public Batch next() {
            int n = w.itemsPerRequest();
            String[] parts = new String[n];
            String[] txns = new String[n];
            for (int i = 0; i < n; i++) {
                if (histSize > 0 && w.duplicateRatio() > 0 && random.nextDouble() < w.duplicateRatio()) {
                    int k = random.nextInt(histSize);
                    parts[i] = histPartition[k];
                    txns[i] = histTxn[k];
                } else {
                    parts[i] = w.partitions() == 0 ? null : pinnedPartition != null ? pinnedPartition
                            : w.partitions() == 1 ? "p0" : "p" + random.nextInt(w.partitions());
                    txns[i] = tag + "-" + (seq++);
                }
            }
            return new Batch(parts, txns, payload);
        }

        /** Remembers an answered request's items as candidates for later duplicates. */
        public void answered(Batch b) {
            if (w.duplicateRatio() <= 0) {
                return;
            }
            for (int i = 0; i < b.size(); i++) {
                histPartition[histNext] = b.partitions()[i];
                histTxn[histNext] = b.transactionIds()[i];
                histNext = (histNext + 1) % HISTORY;
                histSize = Math.min(histSize + 1, HISTORY);
            }
        }
    }
}
