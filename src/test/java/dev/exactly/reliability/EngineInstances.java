package dev.exactly.reliability;

import io.vertx.mutiny.core.Vertx;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A fleet of engine instances (function instances), each with its own pool, reaching the
 * database through one {@link FaultProxy}. {@link #discardOne} throws an instance away
 * mid-flight and puts a fresh one in its slot, as a platform does when it stops an instance
 * between the database commit and the reply.
 */
final class EngineInstances implements AutoCloseable {

    private final Vertx vertx;
    private final int port;
    private final String database;
    private final int statementMs;
    private final int lockMs;
    private final AtomicReferenceArray<EngineInstance> slots;
    private final AtomicInteger generation = new AtomicInteger();

    /**
     * @param size        number of live instances
     * @param port        where they connect (a proxy's port)
     * @param database    database name
     * @param statementMs statement_timeout of their sessions
     * @param lockMs      lock_timeout of their sessions
     */
    EngineInstances(Vertx vertx, int size, int port, String database, int statementMs, int lockMs) {
        this.vertx = vertx;
        this.port = port;
        this.database = database;
        this.statementMs = statementMs;
        this.lockMs = lockMs;
        this.slots = new AtomicReferenceArray<>(size);
        for (int i = 0; i < size; i++) {
            slots.set(i, open());
        }
    }

    private EngineInstance open() {
        return new EngineInstance(vertx, port, database, 4, "exactly-fault-" + generation.incrementAndGet(), statementMs, lockMs);
    }

    /** A live instance, at random. */
    EngineInstance pick(Random rnd) {
        return slots.get(rnd.nextInt(slots.length()));
    }

    /** Discards one instance at random (its pool closes under whatever it is doing) and starts a new one. */
    void discardOne(Random rnd) {
        int i = rnd.nextInt(slots.length());
        EngineInstance old = slots.getAndSet(i, open());
        old.close();
    }

    @Override
    public void close() {
        for (int i = 0; i < slots.length(); i++) {
            slots.get(i).close();
        }
    }
}
