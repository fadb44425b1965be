package dev.exactly.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * The database the running Quarkus test application uses: a fresh one on the embedded PostgreSQL
 * ({@link PostgresResource}, every @QuarkusTest) or the Citus cluster ({@link CitusResource}, the
 * tests that run there too). Direct reads of it ({@link Db}) and second instances' pools go here.
 */
public final class AppDatabase {

    private static volatile CitusCluster.Target current;

    private AppDatabase() {
    }

    /** Sets the database the application was pointed at (by a test resource, before it starts). */
    static void use(CitusCluster.Target target) {
        current = target;
    }

    /** @return where the application's database is */
    public static CitusCluster.Target target() {
        CitusCluster.Target t = current;
        if (t == null) {
            throw new IllegalStateException("no Quarkus test application is running");
        }
        return t;
    }

    /** @return a new JDBC connection to the application's database */
    public static Connection connect() throws SQLException {
        return DriverManager.getConnection(target().jdbcUrl(), target().user(),
                target().password() == null ? "" : target().password());
    }

    /**
     * A Vert.x pool of its own on the application's database, as a second instance would have.
     *
     * @param vertx   the Vert.x instance to run it on
     * @param maxSize most connections
     * @return the pool
     */
    public static io.vertx.mutiny.sqlclient.Pool pool(io.vertx.mutiny.core.Vertx vertx, int maxSize) {
        return target().pool(vertx, maxSize);
    }
}
