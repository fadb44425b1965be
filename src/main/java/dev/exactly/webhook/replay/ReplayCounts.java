package dev.exactly.webhook.replay;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a replay got back. delivered = posts answered at all; stored = 2xx with verdict queued;
 * duplicates = 2xx with verdict duplicate; rejected = 4xx (by status in {@link #rejectedByStatus()});
 * failed = no answer, 5xx, or a 2xx without a verdict. Not thread-safe.
 */
public final class ReplayCounts {

    private int posted;
    private int delivered;
    private int stored;
    private int duplicates;
    private int rejected;
    private int failed;
    private final Map<Integer, Integer> rejectedByStatus = new TreeMap<>();

    /** Records one post's outcome: its HTTP status (0 when none came) and its Exactly-Verdict header (or null). */
    void record(int status, String verdict) {
        posted++;
        if (status == 0) {
            failed++;
            return;
        }
        delivered++;
        if (status >= 200 && status < 300 && "queued".equals(verdict)) {
            stored++;
        } else if (status >= 200 && status < 300 && "duplicate".equals(verdict)) {
            duplicates++;
        } else if (status >= 400 && status < 500) {
            rejected++;
            rejectedByStatus.merge(status, 1, Integer::sum);
        } else {
            failed++;
        }
    }

    /** Posts made. */
    public int posted() {
        return posted;
    }

    /** Posts that got an HTTP answer. */
    public int delivered() {
        return delivered;
    }

    /** Answered 2xx queued: stored now. */
    public int stored() {
        return stored;
    }

    /** Answered 2xx duplicate: stored before, nothing written. */
    public int duplicates() {
        return duplicates;
    }

    /** Answered 4xx (bad signature, missing key, too large, unknown source). */
    public int rejected() {
        return rejected;
    }

    /** No answer, 5xx, or a 2xx without a verdict. */
    public int failed() {
        return failed;
    }

    /** Rejections by HTTP status. */
    public Map<Integer, Integer> rejectedByStatus() {
        return rejectedByStatus;
    }
}
