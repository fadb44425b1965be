package dev.exactly.engine;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this engine instance believes each queue's {@code spreadPartitions} to be (0 for a queue it
 * has not learnt: most queues do not spread). Only a belief: every segment carries the value it
 * was routed with, and the store refuses a segment whose value is not its queue's (SQLSTATE EXS01,
 * {@link SpreadChangedException}) before anything is written; the engine then learns the stored
 * values ({@link PushRepository#spreads}) and routes again. Thread-safe.
 */
public final class QueueSpreads {

    /** Queues remembered at most; past it the map starts over (values are learnt again). */
    static final int MAX_KNOWN_QUEUES = 100_000;

    private final ConcurrentHashMap<String, Integer> known = new ConcurrentHashMap<>();

    /**
     * @param queue a queue name
     * @return its spreadPartitions as last learnt, 0 when never learnt
     */
    public int of(String queue) {
        Integer n = known.get(queue);
        return n == null ? 0 : n;
    }

    /**
     * Records the stored values.
     *
     * @param values queue name to spreadPartitions (0 for a queue that does not exist)
     */
    public void learnt(Map<String, Integer> values) {
        if (known.size() + values.size() > MAX_KNOWN_QUEUES) {
            known.clear();
        }
        values.forEach((q, n) -> {
            if (n == 0) {
                known.remove(q);
            } else {
                known.put(q, n);
            }
        });
    }
}
