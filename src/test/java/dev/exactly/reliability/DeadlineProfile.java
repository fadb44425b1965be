package dev.exactly.reliability;

import java.util.HashMap;
import java.util.Map;

/**
 * {@link RestartablePostgresProfile} with the shortest request deadline the service takes
 * (exactly.request.deadline-ms: the longest long poll, 20 s, and 2 s for its last attempt) and
 * session limits above it (lock and statement timeouts of 60 s), so that a request's deadline
 * comes before any limit of PostgreSQL's own.
 */
public class DeadlineProfile extends RestartablePostgresProfile {

    /** exactly.request.deadline-ms here. */
    public static final long DEADLINE_MS = 22_000;

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> m = new HashMap<>(super.getConfigOverrides());
        m.put("exactly.request.deadline-ms", Long.toString(DEADLINE_MS));
        m.put("exactly.database.lock-timeout-ms", "60000");
        m.put("exactly.database.statement-timeout-ms", "60000");
        return m;
    }
}
