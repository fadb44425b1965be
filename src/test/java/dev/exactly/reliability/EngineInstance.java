package dev.exactly.reliability;

import dev.exactly.engine.DedupCache;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushRepository;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;

/**
 * One engine instance, as one function instance would be: a push engine on a connection pool of
 * its own, to a database on {@link RestartablePostgres} (directly or through a
 * {@link FaultProxy}), with the service's per-connection session limits. It can be discarded at
 * any moment ({@link #close()}), in flight or not.
 */
final class EngineInstance implements AutoCloseable {

    private final Pool pool;
    private final PushEngine engine;
    private final String name;
    private volatile boolean closed;

    /**
     * @param vertx       the Vert.x instance to run the pool on
     * @param port        where to connect on 127.0.0.1 (the server's port, or a proxy's)
     * @param database    database name
     * @param maxSize     most connections
     * @param name        application_name of its sessions (to find them in pg_stat_activity)
     * @param statementMs statement_timeout in ms (0 = off)
     * @param lockMs      lock_timeout in ms (0 = off)
     */
    EngineInstance(Vertx vertx, int port, String database, int maxSize, String name, int statementMs, int lockMs) {
        this.name = name;
        PgConnectOptions connect = new PgConnectOptions().setHost("127.0.0.1").setPort(port).setDatabase(database)
                .setUser("postgres").setCachePreparedStatements(true);
        connect.addProperty("application_name", name);
        connect.addProperty("statement_timeout", Integer.toString(statementMs));
        connect.addProperty("lock_timeout", Integer.toString(lockMs));
        io.vertx.sqlclient.Pool core = PgBuilder.pool().with(new PoolOptions().setMaxSize(maxSize))
                .connectingTo(connect).using(vertx.getDelegate()).build();
        this.pool = Pool.newInstance(core);
        this.engine = new PushEngine(new PushRepository(pool), DedupCache.DISABLED);
    }

    /** The push engine of this instance. */
    PushEngine engine() {
        return engine;
    }

    /** Its pool. */
    Pool pool() {
        return pool;
    }

    /** Its application_name. */
    String name() {
        return name;
    }

    /** True once discarded: a failure seen through it is then the client's cue to go elsewhere. */
    boolean isClosed() {
        return closed;
    }

    /** Discards the instance: its pool closes, in-flight statements lose their connection. */
    @Override
    public void close() {
        closed = true;
        pool.close().subscribe().with(x -> { }, e -> { });
    }
}
