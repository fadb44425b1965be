package dev.exactly.db;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the two database settings an answered push's durability rests on, as the service's own
 * sessions see them (the server's, the database's and the role's settings applied): every answer
 * waits for a synchronous commit (sql/R__push.sql, "Commit before the WAL flush"), which waits for
 * the disk only when {@code synchronous_commit} is not {@code off}, and the disk keeps it only
 * when {@code fsync} is on. With either off, a crash of the database (not of Exactly) can lose
 * pushes that were answered {@code queued}, and a retry of one is then stored again under a new
 * messageId. See PostgreSQL's documentation of both settings ("Write Ahead Log").
 */
@ApplicationScoped
public class DurabilitySettings {

    private static final String READ = "SELECT current_setting('synchronous_commit') AS synchronous_commit, "
            + "current_setting('fsync') AS fsync";

    private final Pool pool;

    /** Constructor injection. */
    public DurabilitySettings(Pool pool) {
        this.pool = pool;
    }

    /**
     * What in this database's settings can lose answered pushes in a database crash.
     *
     * @return one sentence per setting that can (empty when none); fails as a database read fails
     *         ({@link DatabaseErrors#CLASSIFY})
     */
    public Uni<List<String>> problems() {
        return BorrowedConnections.query(pool, READ)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    Row row = rows.iterator().next();
                    List<String> out = new ArrayList<>(2);
                    if ("off".equals(row.getString("synchronous_commit"))) {
                        out.add("synchronous_commit is off: a commit does not wait for its WAL flush");
                    }
                    if ("off".equals(row.getString("fsync"))) {
                        out.add("fsync is off: the WAL is not forced to disk");
                    }
                    return out;
                });
    }
}
