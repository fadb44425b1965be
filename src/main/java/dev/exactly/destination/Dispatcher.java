package dev.exactly.destination;

import dev.exactly.consume.AckCommand;
import dev.exactly.consume.AckStatus;
import dev.exactly.consume.ConsumeRepository;
import dev.exactly.consume.LeasedMessage;
import dev.exactly.consume.PopRequest;
import dev.exactly.db.StoreTimeoutException;
import dev.exactly.db.StoreUnavailableException;
import dev.exactly.queue.QueueStatsRepository;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * Delivers each queue's messages to its destinations. A destination is read as a consumer group of
 * its queue ({@code destination:<name>}): a worker pops a partition under a lease, sends its
 * messages one at a time in offset order, retries a failed one in place (exponential backoff with
 * jitter, or the receiver's Retry-After) while holding the partition, extends the lease as it goes,
 * and acks what it settled. After a destination's last attempt a message is recorded as dead-lettered
 * for that destination alone and its group moves on. So order per partition, at-least-once delivery
 * (a lease that expires mid-delivery, e.g. the process killed, delivers its unacked messages again,
 * with the same messageId), and lag are those of consumer groups.
 *
 * <p>Workers are woken at once by this instance's pushes ({@link #wake}) and by a timer every
 * {@code exactly.delivery.poll-ms} for other instances' pushes and for retries. Workers are threads
 * of their own pool: an attempt blocks its worker, never an event loop.
 */
@ApplicationScoped
public class Dispatcher {

    private static final Logger LOG = Logger.getLogger(Dispatcher.class);
    private static final Duration DB_WAIT = Duration.ofSeconds(30);
    private static final long GAUGE_EVERY_MS = 5_000;
    private static final int MAX_ERROR_CHARS = 1000;

    private final DeliveryConfig config;
    private final ConfiguredDestinations configured;
    private final DestinationRepository repository;
    private final ConsumeRepository consume;
    private final QueueStatsRepository stats;
    private final Vertx vertx;
    private final Instance<MeterRegistry> registry;

    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();
    private final Set<String> started = ConcurrentHashMap.newKeySet();
    /** Deleted destinations whose workers may still run; their group's rows are removed once they stop. */
    private final Set<Slot> removed = ConcurrentHashMap.newKeySet();
    private volatile boolean running;
    private volatile long gaugesAt;
    private ScheduledExecutorService timer;
    private ExecutorService workers;
    private Sender sender;

    /** One destination's delivery state on this instance. */
    private final class Slot {
        volatile Destination d;
        final AtomicInteger inFlight = new AtomicInteger();
        volatile boolean dirty;
        volatile boolean paused;
        /** The destination was deleted: its workers stop at their next step. */
        volatile boolean removed;
        final AtomicInteger redriving = new AtomicInteger();
        final Counter delivered;
        final Counter failed;
        final Counter dead;
        final AtomicLong lagMessages = new AtomicLong();
        final AtomicLong oldestMillis = new AtomicLong();

        Slot(Destination d) {
            this.d = d;
            MeterRegistry r = registry.isResolvable() ? registry.get() : null;
            if (r != null) {
                delivered = Counter.builder("exactly.destination.delivered").tag("destination", d.name())
                        .description("messages delivered to the destination").register(r);
                failed = Counter.builder("exactly.destination.failed.attempts").tag("destination", d.name())
                        .description("attempts that did not deliver").register(r);
                dead = Counter.builder("exactly.destination.dead.letters").tag("destination", d.name())
                        .description("messages dead-lettered for the destination").register(r);
                // by name, so that the gauge reads the current slot of the destination
                String name = d.name();
                Gauge.builder("exactly.destination.lag.messages", slots, m -> m.containsKey(name) ? m.get(name).lagMessages.get() : 0)
                        .tag("destination", name).description("messages not yet delivered nor dead-lettered").register(r);
                Gauge.builder("exactly.destination.oldest.undelivered.seconds", slots,
                                m -> m.containsKey(name) ? m.get(name).oldestMillis.get() / 1000.0 : 0)
                        .tag("destination", name).description("age of the oldest message not yet delivered").register(r);
            } else {
                delivered = null;
                failed = null;
                dead = null;
            }
        }
    }

    /** Constructor injection. */
    public Dispatcher(DeliveryConfig config, ConfiguredDestinations configured, DestinationRepository repository,
                      ConsumeRepository consume, QueueStatsRepository stats, Vertx vertx, Instance<MeterRegistry> registry) {
        this.config = config;
        this.configured = configured;
        this.repository = repository;
        this.consume = consume;
        this.stats = stats;
        this.vertx = vertx;
        this.registry = registry;
    }

    /** @return a dispatcher that never delivers (for code that pushes outside the application, as tests do) */
    public static Dispatcher idle() {
        return new Dispatcher(null, null, null, null, null, null, null);
    }

    void onStart(@Observes StartupEvent event) {
        configured.all(); // checked at start-up, delivering or not
        if (!config.enabled()) {
            return;
        }
        sender = new Senders(new HttpSender(vertx, configured.guard(), Math.max(8, config.workers() * 2)), configured.guard());
        AtomicInteger n = new AtomicInteger();
        workers = Executors.newFixedThreadPool(config.workers(), r -> {
            Thread t = new Thread(r, "exactly-delivery-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "exactly-delivery-timer");
            t.setDaemon(true);
            return t;
        });
        running = true;
        timer.scheduleWithFixedDelay(this::tick, 0, config.pollMs(), TimeUnit.MILLISECONDS);
    }

    void onStop(@Observes ShutdownEvent event) {
        running = false;
        if (timer != null) {
            timer.shutdownNow();
            workers.shutdownNow();
            try {
                workers.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            sender.close();
        }
    }

    /**
     * Wakes the delivery of a queue's destinations: called after messages were stored in it.
     *
     * @param queue the queue
     */
    public void wake(String queue) {
        if (!running) {
            return;
        }
        for (Slot s : slots.values()) {
            if (s.d.queue().equals(queue)) {
                kick(s, 1);
            }
        }
    }

    /**
     * Stops a deleted destination's workers at their next step (a pop, an attempt), before the
     * next read of the destinations would. A pop already under way may write the group's cursor
     * again after the delete; the group's rows are removed once its workers have stopped.
     *
     * @param name the destination deleted
     */
    public void forget(String name) {
        Slot s = slots.remove(name);
        if (s != null) {
            s.removed = true;
            removed.add(s);
        }
    }

    /** Reads the destinations again at once (after a PUT or DELETE on this instance) and wakes them. */
    public void refreshSoon() {
        if (running) {
            timer.execute(this::tick);
        }
    }

    private void tick() {
        try {
            refresh();
        } catch (RuntimeException e) {
            LOG.debugf("destinations: cannot read them now: %s", e.toString());
        }
        for (Slot s : slots.values()) {
            kick(s, 1);
        }
        if (System.currentTimeMillis() - gaugesAt >= GAUGE_EVERY_MS) {
            gaugesAt = System.currentTimeMillis();
            try {
                gauges();
            } catch (RuntimeException e) {
                LOG.debugf("destinations: cannot read their lag now: %s", e.toString());
            }
        }
    }

    private void refresh() {
        Map<String, Destination> now = new HashMap<>(configured.all());
        for (Destination d : repository.list().await().atMost(DB_WAIT)) {
            now.putIfAbsent(d.name(), d);
        }
        for (Destination d : now.values()) {
            if (d.configured() && !started.contains(d.name())) {
                repository.start(d).await().atMost(DB_WAIT);
                started.add(d.name());
            }
            Slot s = slots.get(d.name());
            if (s == null || !s.d.queue().equals(d.queue())) {
                slots.put(d.name(), new Slot(d));
            } else {
                s.d = d;
            }
        }
        for (String name : Set.copyOf(slots.keySet())) {
            if (!now.containsKey(name)) {
                forget(name);
            }
        }
        sweepRemoved();
        Set<String> paused = repository.paused().await().atMost(DB_WAIT);
        for (Slot s : slots.values()) {
            s.paused = paused.contains(s.d.name());
        }
        for (String name : repository.redrivesDue().await().atMost(DB_WAIT)) {
            Slot s = slots.get(name);
            if (s != null && !s.paused && s.redriving.compareAndSet(0, 1)) {
                try {
                    workers.execute(() -> {
                        try {
                            while (running && !s.paused && !s.removed && redriveOne(s)) {
                                // one redriven dead letter after another
                            }
                        } catch (RuntimeException e) {
                            stopped(s, "redrive", e);
                        } finally {
                            s.redriving.set(0);
                        }
                    });
                } catch (RuntimeException e) {
                    s.redriving.set(0);
                }
            }
        }
    }

    /** Removes the rows a deleted destination's last pop may have written back, once its workers stopped. */
    private void sweepRemoved() {
        for (Slot s : removed) {
            if (s.inFlight.get() == 0 && s.redriving.get() == 0) {
                repository.dropOrphanGroup(s.d.name(), s.d.group()).await().atMost(DB_WAIT);
                removed.remove(s);
            }
        }
    }

    private void gauges() {
        Set<String> queues = new HashSet<>();
        slots.values().forEach(s -> queues.add(s.d.queue()));
        for (String q : queues) {
            var lags = stats.groups(q).await().atMost(DB_WAIT);
            for (Slot s : slots.values()) {
                if (!s.d.queue().equals(q)) {
                    continue;
                }
                var lag = lags.stream().filter(g -> g.group().equals(s.d.group())).findFirst().orElse(null);
                s.lagMessages.set(lag == null ? 0 : lag.lag());
                s.oldestMillis.set(lag == null || lag.ageSeconds() == null ? 0 : (long) (lag.ageSeconds() * 1000));
            }
        }
    }

    /**
     * Starts a worker for the destination unless {@code max} already run: 1 for a wake-up or the
     * timer (an idle destination, or one whose database is away, holds one connection at most), up
     * to exactly.delivery.workers after a worker found messages (other partitions may have some).
     */
    private void kick(Slot s, int max) {
        s.dirty = true;
        while (running && !s.paused && !s.removed) {
            int n = s.inFlight.get();
            if (n >= max) {
                return;
            }
            if (s.inFlight.compareAndSet(n, n + 1)) {
                try {
                    workers.execute(() -> work(s));
                } catch (RuntimeException e) {
                    s.inFlight.decrementAndGet();
                }
                return;
            }
        }
    }

    private void work(Slot s) {
        try {
            while (running && !s.paused && !s.removed) {
                s.dirty = false;
                if (deliverBatch(s)) {
                    kick(s, config.workers()); // another partition may have messages too
                    continue;
                }
                if (!s.dirty) {
                    break;
                }
            }
        } catch (RuntimeException e) {
            stopped(s, "delivery", e);
        } finally {
            s.inFlight.decrementAndGet();
        }
    }

    /** Figures of a worker's deliveries not yet written. */
    private static final class Tally {
        long delivered;
        long failed;
        String lastError;
    }

    /** How a message's attempts ended. */
    private enum Outcome { DELIVERED, DEAD, ABORTED }

    /** Keeps the right to deliver (a lease, a redrive claim) for at least {@code needMs} more; false when lost. */
    private interface Keeper {
        boolean keep(long needMs);
    }

    /**
     * Sends one message until it is delivered, its attempts are used up, or the worker must stop.
     * {@code beforeWait} runs before each backoff (writing what is settled so far).
     *
     * @return the outcome; {@code attemptsUsed[0]} is the number of the last attempt made
     */
    private Outcome attempts(Slot s, Destination d, Sender.Outgoing out, int first, Keeper keeper, Runnable beforeWait,
                             Tally tally, int[] attemptsUsed) {
        int attempt = first;
        while (true) {
            if (!running || s.paused || s.removed) {
                return Outcome.ABORTED;
            }
            if (!keeper.keep(d.timeoutMs() + 5_000L)) {
                return Outcome.ABORTED;
            }
            attemptsUsed[0] = attempt;
            Sender.Result r = sender.send(d, out, attempt);
            if (r.delivered()) {
                tally.delivered++;
                count(s.delivered);
                return Outcome.DELIVERED;
            }
            tally.failed++;
            count(s.failed);
            tally.lastError = clip(r.error());
            if (attempt >= d.maxAttempts() || r.permanent()) {
                count(s.dead);
                return Outcome.DEAD;
            }
            long wait = backoff(d, attempt, r.retryAfterMs());
            beforeWait.run();
            if (!keeper.keep(wait + d.timeoutMs() + 5_000L)) {
                return Outcome.ABORTED;
            }
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Outcome.ABORTED;
            }
            attempt++;
        }
    }

    /** Leases one partition, delivers what it got; false when nothing was available. */
    private boolean deliverBatch(Slot s) {
        Destination d = s.d;
        int leaseSeconds = leaseSeconds(d);
        List<LeasedMessage> batch = consume.popStored(new PopRequest(d.queue(), null, d.group(), config.batch(),
                leaseSeconds, 0)).await().atMost(DB_WAIT);
        if (batch.isEmpty()) {
            return false;
        }
        long[] leaseEnds = {System.currentTimeMillis() + leaseSeconds * 1000L};
        List<AckCommand> acks = new ArrayList<>();
        Tally tally = new Tally();
        Runnable flush = () -> flush(d, acks, tally);
        try {
            for (LeasedMessage m : batch) {
                Sender.Outgoing out = new Sender.Outgoing(m.messageId().toString(), m.queue(), m.partition(),
                        m.offset(), m.transactionId(), m.contentType(), m.payload());
                Keeper lease = needMs -> {
                    leaseEnds[0] = keepLease(m, leaseEnds[0], needMs);
                    return leaseEnds[0] >= 0;
                };
                int[] used = {m.attempts()};
                Outcome o = attempts(s, d, out, m.attempts(), lease, flush, tally, used);
                if (o == Outcome.ABORTED) {
                    return true; // unacked from here: the lease expires and they are delivered again
                }
                if (o == Outcome.DEAD) {
                    repository.deadLetter(d.name(), m.partitionId(), m.offset(), m.messageId(), used[0],
                            tally.lastError).await().atMost(DB_WAIT);
                    LOG.warnf("destination %s: message %s (%s/%s offset %d) dead-lettered after %d attempts: %s",
                            d.name(), m.messageId(), m.queue(), m.partition(), m.offset(), used[0], tally.lastError);
                }
                acks.add(ack(d, m));
            }
        } finally {
            flush.run();
        }
        return true;
    }

    /** Sends the next redriven dead letter of a destination no instance holds; false when there is none. */
    private boolean redriveOne(Slot s) {
        Destination d = s.d;
        int seconds = leaseSeconds(d);
        DestinationRepository.Redrive r = repository.claimRedrive(d.name(), seconds).await().atMost(DB_WAIT);
        if (r == null) {
            return false;
        }
        if (r.message() == null) {
            repository.redriveFailed(d.name(), r.partitionId(), r.offset(), 0,
                    "its data was purged by the queue's retention: nothing left to send").await().atMost(DB_WAIT);
            return true;
        }
        DestinationRepository.Stored m = r.message();
        Sender.Outgoing out = new Sender.Outgoing(m.messageId().toString(), d.queue(), m.partition(), r.offset(),
                m.transactionId(), m.contentType(), m.payload());
        long[] until = {System.currentTimeMillis() + seconds * 1000L};
        Keeper claim = needMs -> {
            long now = System.currentTimeMillis();
            if (until[0] - now < needMs) {
                int ask = (int) Math.max(seconds, needMs / 1000 + 1);
                repository.extendClaim(d.name(), r.partitionId(), r.offset(), ask).await().atMost(DB_WAIT);
                until[0] = now + ask * 1000L;
            }
            return true;
        };
        Tally tally = new Tally();
        int[] used = {1};
        Outcome o = attempts(s, d, out, 1, claim, () -> { }, tally, used);
        if (o == Outcome.DELIVERED) {
            repository.redriven(d.name(), r.partitionId(), r.offset()).await().atMost(DB_WAIT);
        } else if (o == Outcome.DEAD) {
            repository.redriveFailed(d.name(), r.partitionId(), r.offset(), used[0], tally.lastError).await().atMost(DB_WAIT);
        }
        if (tally.delivered > 0 || tally.failed > 0) {
            repository.addFigures(d.name(), tally.delivered, tally.failed, tally.lastError).await().atMost(DB_WAIT);
        }
        return o != Outcome.ABORTED;
    }

    private void flush(Destination d, List<AckCommand> acks, Tally tally) {
        if (!acks.isEmpty()) {
            consume.ack(List.copyOf(acks)).await().atMost(DB_WAIT);
            acks.clear();
        }
        if (tally.delivered > 0 || tally.failed > 0) {
            repository.addFigures(d.name(), tally.delivered, tally.failed, tally.lastError).await().atMost(DB_WAIT);
            tally.delivered = 0;
            tally.failed = 0;
            tally.lastError = null;
        }
    }

    /**
     * Makes sure the lease lasts at least {@code needMs} more; extends it when not.
     *
     * @return the lease's end by this instance's clock, or -1 when the lease was lost
     */
    private long keepLease(LeasedMessage m, long leaseEnds, long needMs) {
        long now = System.currentTimeMillis();
        if (leaseEnds - now >= needMs) {
            return leaseEnds;
        }
        int ask = (int) Math.min(PopRequest.MAX_LEASE_SECONDS, needMs / 1000 + 30);
        ConsumeRepository.Extension e = consume.extend(m.leaseId(), ask).await().atMost(DB_WAIT);
        if (e == null || !e.extended()) {
            LOG.warnf("a destination lost its lease on %s/%s; another worker delivers from there", m.queue(), m.partition());
            return -1;
        }
        return now + ask * 1000L;
    }

    private static AckCommand ack(Destination d, LeasedMessage m) {
        return new AckCommand(m.queue(), m.partition(), d.group(), m.leaseId(), null, m.messageId(), AckStatus.COMPLETED, null);
    }

    private static int leaseSeconds(Destination d) {
        return Math.max(30, (d.timeoutMs() / 1000 + 1) * 3);
    }

    /**
     * The wait after failed attempt {@code attempt}: the receiver's Retry-After when it gave one (up
     * to an hour), else backoffMs doubled per attempt, capped at backoffCapMs, half of it random
     * (jitter).
     */
    static long backoff(Destination d, int attempt, Long retryAfterMs) {
        if (retryAfterMs != null) {
            return Math.min(Math.max(retryAfterMs, 0), DestinationRules.MAX_BACKOFF_MS);
        }
        long full = Math.min((long) d.backoffCapMs(), (long) d.backoffMs() << Math.min(attempt - 1, 30));
        long half = full / 2;
        return half + ThreadLocalRandom.current().nextLong(full - half + 1);
    }

    /**
     * A worker stopped by an error; the timer starts it again. The database being away is logged
     * at DEBUG only: requests report it already (dev.exactly.problem.DatabaseFailures, one line a
     * minute) and readiness shows it.
     */
    private static void stopped(Slot s, String what, RuntimeException e) {
        if (e instanceof StoreUnavailableException || e instanceof StoreTimeoutException) {
            LOG.debugf("destination %s: %s waits for the database: %s", s.d.name(), what, e.toString());
        } else {
            LOG.warnf("destination %s: %s stopped for now: %s", s.d.name(), what, e.toString());
        }
    }

    private static String clip(String error) {
        return error == null || error.length() <= MAX_ERROR_CHARS ? error : error.substring(0, MAX_ERROR_CHARS);
    }

    private static void count(Counter c) {
        if (c != null) {
            c.increment();
        }
    }
}
