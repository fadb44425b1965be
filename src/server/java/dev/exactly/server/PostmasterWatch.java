package dev.exactly.server;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Watches the embedded PostgreSQL and starts it again when it dies (killed, crashed, stopped by
 * hand): the service's connection pool then reconnects by itself, as it does to a real server
 * that comes back. Each outage gets at most {@code maxAttempts} restarts, {@code firstDelay}
 * apart and doubling; when they all fail, {@code onGiveUp} runs (the service stops with an
 * error). {@link #status()} says which of these is happening, for {@code /q/health}.
 *
 * <p>Polls every {@code pollEvery} on a daemon thread of its own; the PostgreSQL is not this
 * JVM's child (pg_ctl detaches it), so there is no exit notification to wait for.
 */
final class PostmasterWatch implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(PostmasterWatch.class);

    /** Longest {@link #close()} waits for a check under way. */
    private static final int CLOSE_WAIT_SECONDS = 5;

    /** What the watch saw last. */
    enum State {
        /** The postmaster runs. */
        RUNNING,
        /** It died; restart attempts are under way. */
        RESTARTING,
        /** Every restart attempt failed; the service is stopping. */
        FAILED
    }

    /**
     * A snapshot for health reports.
     *
     * @param state       the current state
     * @param pid         the postmaster's PID (of its latest start)
     * @param restarts    successful restarts since the service started
     * @param attempt     the restart attempt under way or last made in this outage (0 when running)
     * @param maxAttempts attempts per outage
     * @param lastFailure what went wrong last (null when nothing did)
     * @param lastChange  when the state last changed
     */
    record Status(State state, long pid, int restarts, int attempt, int maxAttempts, String lastFailure,
                  Instant lastChange) {
    }

    private static volatile PostmasterWatch current;

    private final EmbeddedDatabase db;
    private final int maxAttempts;
    private final Duration firstDelay;
    private final Duration pollEvery;
    private final Runnable onGiveUp;
    private final ScheduledExecutorService timer;
    private volatile Status status;

    /**
     * @param db          the database to watch
     * @param maxAttempts restarts per outage before giving up (at least 1)
     * @param firstDelay  wait before the second attempt; doubles for each further one
     * @param pollEvery   how often the postmaster is checked
     * @param onGiveUp    run once when every attempt of an outage failed
     */
    PostmasterWatch(EmbeddedDatabase db, int maxAttempts, Duration firstDelay, Duration pollEvery, Runnable onGiveUp) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("exactly.embedded.restart-attempts must be at least 1, got " + maxAttempts);
        }
        this.db = db;
        this.maxAttempts = maxAttempts;
        this.firstDelay = firstDelay;
        this.pollEvery = pollEvery;
        this.onGiveUp = onGiveUp;
        this.status = new Status(State.RUNNING, db.pid(), 0, 0, maxAttempts, null, Instant.now());
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "embedded-postgresql-watch");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts watching; also makes this the watch {@link #current()} reports. */
    PostmasterWatch start() {
        current = this;
        timer.scheduleWithFixedDelay(this::check, pollEvery.toMillis(), pollEvery.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** The watch of this process's embedded database, or null when the service runs on a configured datasource. */
    static PostmasterWatch current() {
        return current;
    }

    /** What is happening now. */
    Status status() {
        return status;
    }

    private void check() {
        if (status.state() != State.RUNNING || db.isRunning() || shuttingDown()) {
            return;
        }
        long deadPid = db.pid();
        LOG.errorf("The embedded PostgreSQL (PID %d) has exited; restarting it (at most %d attempts)", deadPid, maxAttempts);
        long delay = firstDelay.toMillis();
        String failure = "PostgreSQL PID " + deadPid + " exited";
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            status = new Status(State.RESTARTING, deadPid, status.restarts(), attempt, maxAttempts, failure, Instant.now());
            if (shuttingDown()) {
                return;
            }
            try {
                db.restart();
                status = new Status(State.RUNNING, db.pid(), status.restarts() + 1, 0, maxAttempts, failure, Instant.now());
                LOG.warnf("Restarted the embedded PostgreSQL (attempt %d of %d): PID %d, on %s", attempt, maxAttempts,
                        db.pid(), db.url());
                return;
            } catch (Exception e) {
                failure = e.getMessage();
                LOG.warnf("Restart attempt %d of %d of the embedded PostgreSQL failed: %s", attempt, maxAttempts, failure);
            }
            if (attempt < maxAttempts) {
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                delay *= 2;
            }
        }
        status = new Status(State.FAILED, deadPid, status.restarts(), maxAttempts, maxAttempts, failure, Instant.now());
        LOG.errorf("The embedded PostgreSQL could not be restarted after %d attempts (the last: %s); stopping the service. "
                + "See %s", maxAttempts, failure, db.logFile());
        onGiveUp.run();
    }

    /** True once the JVM is shutting down: the postmaster then stops with it and must stay stopped. */
    private static boolean shuttingDown() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }

    /** Stops watching (before the database is closed, so that its stop is not taken for a death). */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (current == this) {
            current = null;
        }
    }
}
