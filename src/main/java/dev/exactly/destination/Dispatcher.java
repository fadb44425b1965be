package dev.exactly.destination;

import dev.exactly.consume.AckCommand;
import dev.exactly.consume.AckStatus;
import dev.exactly.consume.ConsumeRepository;
import dev.exactly.consume.LeasedMessage;
import dev.exactly.consume.PopRequest;
import dev.exactly.db.DatabaseErrors;
import dev.exactly.db.StoreTimeoutException;
import dev.exactly.db.StoreUnavailableException;
import dev.exactly.queue.QueueStatsRepository;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
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
 * with the same messageId), and lag are those of consumer groups. A destination counts its attempts
 * per message itself (exactly.destination_attempts: attempt 1 once it failed, every later one
 * before it is sent), so Exactly-Attempt and maxAttempts go on across leases; the queue's
 * retryLimit does not apply to its group (its pops dead-letter nothing into the queue's
 * dead-letter queue). A pause ends a backoff at once, and a worker whose batch has a message cut off
 * (a pause, a deletion, the stop) releases its lease once the rest of the batch settled, so that the
 * resume, or a restart, delivers at once (the stop keeps a backoff it cut off: the lease lasts until
 * it ends); from the stop signal ({@link #onStopSignal}) no pop and no attempt begins, the attempts
 * under way may run on to their answers for {@code exactly.delivery.stop-wait-ms} (server shape),
 * and once the workers ended the stop releases any lease this
 * instance still holds (a pop the database answered after the stop began leased batches no worker
 * takes up). Each attempt reads the destination as it is then: a PUT
 * reaches a message already being retried at its next attempt. Its acks, lease extensions and
 * releases, figures and dead letters commit asynchronously ({@link ConsumeRepository#ASYNC_COMMIT}):
 * lost in a database crash, they deliver a message again with its id; so do its pops, except one
 * that leased a message a push committed before its own WAL flush, which waits for its flush so
 * that nothing is delivered before it is durable ({@link ConsumeRepository#popStored}); its attempt
 * records commit synchronously.
 *
 * <p>In the server shape ({@link DeliveryConfig.Mode#TIMER}) workers are woken at once by this
 * instance's pushes ({@link #stored}) and by a timer every {@code exactly.delivery.poll-ms} for other
 * instances' pushes and for retries. In the Lambda shape ({@link DeliveryConfig.Mode#INVOCATION})
 * nothing runs between invocations: a store asks for a drain through the {@link DrainTrigger}, and
 * {@link #drain} delivers until nothing is due or its deadline; a partition it must leave in the
 * middle of a batch (a backoff or an attempt that would outlast the deadline) keeps its lease and is
 * parked ({@link DrainRepository#park}) for a later drain to resume. Workers are threads of their
 * own pool: an attempt blocks its worker, never an event loop.
 */
@ApplicationScoped
public class Dispatcher {

    private static final Logger LOG = Logger.getLogger(Dispatcher.class);
    private static final Duration DB_WAIT = Duration.ofSeconds(30);
    /** How long a batch's acks are tried again while the database is unavailable (a lease lasts at least 30 s). */
    static final long OUTAGE_MAX_MS = 20_000;
    /** The wait between two tries of a batch's acks while the database is unavailable. */
    static final long OUTAGE_RETRY_MS = 500;
    private static final long GAUGE_EVERY_MS = 5_000;
    private static final int MAX_ERROR_CHARS = 1000;
    /** Kept free before a drain's deadline: an attempt (or backoff) that would end later parks its partition. */
    static final long DRAIN_MARGIN_MS = 1_000;
    /** At the stop, how long a batch's worker waits for its interrupted senders before it writes what they settled. */
    private static final long STOP_SETTLE_MS = 2_000;
    /**
     * At the stop, how long it waits for the workers to write what they settled and release their
     * leases (normally milliseconds) before the database pool closes under them.
     */
    static final long STOP_WAIT_MS = 10_000;
    /**
     * Invocation mode: how long this instance trusts what it read of a queue having a destination
     * defined through the API. A destination another instance adds is noticed by this one's stores
     * within this time (the scheduled drain delivers what they stored meanwhile); one this instance
     * adds or deletes is noticed at once ({@link #refreshSoon}).
     */
    static final long DESTINATION_LOOKUP_TTL_MS = 10_000;
    /** Invocation mode: at most this many queues' lookups are kept; beyond it the cache starts again empty. */
    private static final int DESTINATION_LOOKUP_MAX = 10_000;

    private final DeliveryConfig config;
    private final ConfiguredDestinations configured;
    private final DestinationRepository repository;
    private final ConsumeRepository consume;
    private final QueueStatsRepository stats;
    private final Vertx vertx;
    private final Instance<MeterRegistry> registry;
    private final DrainRepository drains;
    private final Instance<DrainTrigger> trigger;

    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();
    /** Each destination's coalescer of lean acks, by name ({@link #completedAcks}). */
    private final ConcurrentHashMap<String, AckCoalescer<DestinationRepository.CompletedAck, DestinationRepository.AckResult>> completedAcks =
            new ConcurrentHashMap<>();
    private final Set<String> started = ConcurrentHashMap.newKeySet();
    // configured destinations not started because their name is held on another queue, with what
    // holds it there (each logged once while it lasts)
    private final Map<String, DestinationRepository.Holder> clashes = new ConcurrentHashMap<>();
    /** Deleted destinations whose workers may still run; their group's rows are removed once they stop. */
    private final Set<Slot> removed = ConcurrentHashMap.newKeySet();
    private volatile boolean running;
    /**
     * When the configured destinations were last started again, which marks each as configured
     * ({@link DestinationRepository#startUnlessHeld}), System.currentTimeMillis() time; 0 before the first.
     */
    private volatile long configuredMarkedAt;
    /**
     * Set at the stop signal ({@link #onStopSignal}, before the HTTP server waits for its requests
     * under way) and at the stop itself: from then on no pop and no attempt begins, and a backoff
     * ends as the stop cuts it (its lease kept until it is due). Attempts under way go on until the
     * stop ({@link #onStop}) cuts those still running once its wait for them ended.
     */
    private volatile boolean stopping;
    /** When {@link #stopping} was first set ({@link System#nanoTime()}): the stop's wait for attempts under way counts from it. */
    private volatile long stopSignalledAt;
    private volatile long gaugesAt;
    /** Invocation mode: delivery runs only inside {@link #drain}, which sets its deadline here. */
    private volatile boolean invocation;
    private volatile long deadline = Long.MAX_VALUE;
    /** Invocation mode: the running drain's whole time, from its start to its deadline (ms). */
    private volatile long drainMs = Long.MAX_VALUE;
    /**
     * Invocation mode: set when the running drain left due work because its next attempt would not
     * end before the deadline; the drain then asks for the next one, as at its deadline.
     */
    private final AtomicBoolean cutShort = new AtomicBoolean();
    /**
     * Invocation mode: queue → whether it had a destination defined through the API when read, and
     * until when (System.nanoTime) that is trusted. A store into a queue known to have none runs no
     * statement for delivery.
     */
    private final ConcurrentHashMap<String, Lookup> destinationLookups = new ConcurrentHashMap<>();
    /** Bumped when this instance changes a destination: a lookup that began before it is not kept. */
    private final AtomicLong destinationsChanged = new AtomicLong();
    /** Bumped when this instance pauses or resumes a destination: a timer round that read the paused ones before it leaves them. */
    private final AtomicLong pausesChanged = new AtomicLong();

    private record Lookup(boolean hasDestination, long untilNanos) {
    }

    /** Batches popped or resumed so far (a drain's final look compares it). */
    private final AtomicLong batches = new AtomicLong();
    /**
     * The leases of batches this instance popped or resumed whose delivery has not ended: the stop
     * releases those its workers left ({@link #releaseLeft}), such as the other partitions of a pop
     * answered as the stop began.
     */
    private final Set<UUID> held = ConcurrentHashMap.newKeySet();
    private ScheduledExecutorService timer;
    private java.util.concurrent.ThreadPoolExecutor workers;
    /** Sends the messages of unordered destinations' batches, each on its own thread (deliverAtOnce). */
    private java.util.concurrent.ThreadPoolExecutor senders;
    private Sender sender;

    /** The meters each destination has, tagged with its name. */
    private static final List<String> METERS = List.of("exactly.destination.delivered", "exactly.destination.failed.attempts",
            "exactly.destination.dead.letters", "exactly.destination.lag.messages", "exactly.destination.oldest.undelivered.seconds");

    /** One destination's delivery state on this instance. */
    final class Slot {
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
        /** This destination's leases ended early so far (its worker that saw one pops again at once). */
        final AtomicLong releases = new AtomicLong();
        /** When its last pop began (System.nanoTime): the timer starts a worker when none has popped for a round. */
        volatile long poppedAt = System.nanoTime();

        /** Pauses or resumes the destination's workers here; a pause ends their backoff waits at once. */
        void pause(boolean p) {
            paused = p;
            if (p) {
                synchronized (this) {
                    notifyAll();
                }
            }
        }

        /** Marks the destination deleted; its workers' backoff waits end at once. */
        void remove() {
            removed = true;
            synchronized (this) {
                notifyAll();
            }
        }

        /**
         * Waits {@code ms} milliseconds (a backoff) unless the destination is paused or deleted, or
         * delivery stops, meanwhile.
         *
         * @return true when the whole wait passed; false when it was cut short
         */
        boolean sleep(long ms) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            synchronized (this) {
                while (sending() && !paused && !removed) {
                    long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
                    if (left <= 0) {
                        return true;
                    }
                    try {
                        wait(left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }
            }
            return false;
        }

        Slot(Destination d) {
            this.d = d;
            MeterRegistry r = registry != null && registry.isResolvable() ? registry.get() : null;
            if (r != null) {
                delivered = Counter.builder("exactly.destination.delivered").tag("destination", d.name())
                        .description("messages delivered to the destination").register(r);
                failed = Counter.builder("exactly.destination.failed.attempts").tag("destination", d.name())
                        .description("attempts that did not deliver").register(r);
                dead = Counter.builder("exactly.destination.dead.letters").tag("destination", d.name())
                        .description("messages dead-lettered for the destination").register(r);
                // a slot made again (after a replay) gets the counters the name already has, which
                // count on; the gauges read the current slot by name and are registered once per name
                String name = d.name();
                if (r.find("exactly.destination.lag.messages").tag("destination", name).gauge() == null) {
                    Gauge.builder("exactly.destination.lag.messages", slots, m -> m.containsKey(name) ? m.get(name).lagMessages.get() : 0)
                            .tag("destination", name).description("messages not yet delivered nor dead-lettered").register(r);
                    Gauge.builder("exactly.destination.oldest.undelivered.seconds", slots,
                                    m -> m.containsKey(name) ? m.get(name).oldestMillis.get() / 1000.0 : 0)
                            .tag("destination", name).description("age of the oldest message not yet delivered").register(r);
                }
            } else {
                delivered = null;
                failed = null;
                dead = null;
            }
        }
    }

    /** Constructor injection. */
    public Dispatcher(DeliveryConfig config, ConfiguredDestinations configured, DestinationRepository repository,
                      ConsumeRepository consume, QueueStatsRepository stats, Vertx vertx, Instance<MeterRegistry> registry,
                      DrainRepository drains, Instance<DrainTrigger> trigger) {
        this.config = config;
        this.drains = drains;
        this.trigger = trigger;
        this.configured = configured;
        this.repository = repository;
        this.consume = consume;
        this.stats = stats;
        this.vertx = vertx;
        this.registry = registry;
    }

    /** @return a dispatcher that never delivers (for code that pushes outside the application, as tests do) */
    public static Dispatcher idle() {
        return new Dispatcher(null, null, null, null, null, null, null, null, null);
    }

    void onStart(@Observes StartupEvent event) {
        configured.all(); // checked at start-up, delivering or not
        if (!config.enabled()) {
            return;
        }
        if (config.mode() == DeliveryConfig.Mode.INVOCATION) {
            invocation = true; // the pools start with the first drain, not before a snapshot
            deadline = 0; // nothing delivers outside a drain
            return;
        }
        startPools();
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "exactly-delivery-timer");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::tick, 0, config.pollMs(), TimeUnit.MILLISECONDS);
    }

    private synchronized void startPools() {
        if (running) {
            return;
        }
        // an unordered destination has up to a batch of messages in flight per worker
        int inFlight = config.workers() * config.batch();
        sender = new Senders(new HttpSender(vertx, configured.guard(), Math.max(8, inFlight)), configured.guard());
        // Threads start on demand, with no limit across destinations: each destination bounds its own
        // (exactly.delivery.workers partitions, each with up to a batch of messages when unordered), and
        // a worker keeps its thread through a retry's backoff. A shared limit would let a destination
        // whose receiver is down hold every thread through its backoffs, and the others' messages wait.
        workers = onDemand("exactly-delivery-");
        java.util.concurrent.ThreadPoolExecutor pool = onDemand("exactly-delivery-send-");
        senders = pool;
        stopping = false;
        running = true;
    }

    /** @return whether a pop or an attempt may begin: delivery runs and no stop was signalled */
    private boolean sending() {
        return running && !stopping;
    }

    /** A pool whose daemon threads start on demand, unbounded, and end after 30 s idle. */
    private static java.util.concurrent.ThreadPoolExecutor onDemand(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return new java.util.concurrent.ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
                new java.util.concurrent.SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, prefix + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    /**
     * The stop signal (SIGTERM; the first phase of the stop, fired with
     * {@code quarkus.shutdown.delay-enabled}, before the HTTP server waits for its requests under
     * way): from now on no pop and no attempt begins. An attempt under way goes on to its answer,
     * which counts and is acked, until {@link #onStop} cuts those still running (at the end of its
     * wait, {@code exactly.delivery.stop-wait-ms} from this signal); a backoff ends now,
     * its lease kept until it is due, as at the stop; a batch whose next message is not sent is
     * released once it wrote what it settled, so that the restart, or another instance, goes on
     * with it at once.
     */
    void onStopSignal(@Observes ShutdownDelayInitiatedEvent event) {
        signalStop();
        LOG.debug("destinations: stop signalled; no delivery begins from now on");
    }

    /** Sets {@link #stopping} (noting when, the first time) and ends every backoff. */
    private void signalStop() {
        synchronized (this) {
            if (!stopping) {
                stopSignalledAt = System.nanoTime();
                stopping = true;
            }
        }
        for (Slot s : slots.values()) {
            synchronized (s) {
                s.notifyAll(); // ends its backoffs
            }
        }
    }

    /**
     * The stop: no attempt begins (as from the signal); in the server shape the attempts under way
     * may go on to their answers until {@code exactly.delivery.stop-wait-ms} after the signal
     * ({@link #awaitAttemptsUnderWay}); then those still running are cut off, what the workers
     * settled is written and every lease this instance holds is released.
     */
    void onStop(@Observes ShutdownEvent event) {
        signalStop();
        if (timer != null) {
            timer.shutdownNow();
        }
        if (workers != null && config.mode() == DeliveryConfig.Mode.TIMER) {
            awaitAttemptsUnderWay(stopSignalledAt + TimeUnit.MILLISECONDS.toNanos(config.stopWaitMs()));
            int busy = workers.getActiveCount() + senders.getActiveCount();
            if (busy > 0) {
                LOG.infof("destinations: the stop cuts off what is still under way after exactly.delivery.stop-wait-ms "
                        + "(%d ms; %d threads busy): those messages are sent again after the restart, or by another instance",
                        config.stopWaitMs(), busy);
            }
        }
        running = false;
        if (workers != null) {
            senders.shutdownNow();
            // cuts attempts and backoffs; their database statements go on (db)
            for (Runnable never : workers.shutdownNow()) {
                if (never instanceof Handed h) {
                    h.giveUp();
                }
            }
            try {
                if (!workers.awaitTermination(STOP_WAIT_MS, TimeUnit.MILLISECONDS)) {
                    LOG.warnf("destinations: workers still busy %d ms after the stop; their leases are released", STOP_WAIT_MS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            releaseLeft();
            sender.close();
        }
    }

    /**
     * At the stop, before anything is cut off: waits until no worker and no sender thread is busy
     * (each attempt under way answered, and its batch settled and released: from the stop signal a
     * worker begins no attempt and ends after the one under way), or until {@code deadline}
     * ({@link System#nanoTime()}), whichever comes first. An interrupt ends the wait.
     */
    private void awaitAttemptsUnderWay(long deadline) {
        try {
            while (workers.getActiveCount() + senders.getActiveCount() > 0 && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * At the stop, once the workers ended (or {@link #STOP_WAIT_MS} passed): ends every lease this
     * instance still holds ({@link #held}), so that the next start, or another instance, delivers
     * those messages at once rather than when the lease runs out. A lease that cannot be ended is
     * logged (WARN) and runs out.
     */
    private void releaseLeft() {
        List<UUID> left = List.copyOf(held);
        held.clear();
        for (UUID lease : left) {
            endLease(lease, "destinations", "a partition no worker took up");
        }
        if (!left.isEmpty()) {
            LOG.debugf("destinations: %d leases no worker ended released at the stop", left.size());
        }
    }

    /**
     * Starts the delivery of the queues' destinations: called after messages were stored in them (a
     * push, a webhook, a transaction committed). In the server shape it wakes this instance's
     * workers and completes at once. In the Lambda shape it asks for a drain of each of those queues
     * that has a destination and whose drain was not asked for within
     * {@code exactly.delivery.drain-debounce-ms}, and completes once each was asked for (before the
     * invocation answers: a frozen instance sends nothing). It never fails: a drain that could not be
     * asked for is logged, and the scheduled drain delivers the messages.
     *
     * @param queues the queues messages were stored in
     * @return completes when the drains were asked for
     */
    public Uni<Void> stored(Collection<String> queues) {
        if (queues.isEmpty() || config == null || !config.enabled()) {
            return Uni.createFrom().voidItem();
        }
        if (!invocation) {
            queues.forEach(this::wake);
            return Uni.createFrom().voidItem();
        }
        if (!trigger.isResolvable()) {
            return Uni.createFrom().voidItem();
        }
        Set<String> withConfigured = configuredQueues();
        return withDestination(new LinkedHashSet<>(queues), withConfigured)
                .flatMap(candidates -> candidates.isEmpty() ? Uni.createFrom().item(List.<String>of())
                        : drains.ask(candidates, withConfigured, config.drainDebounceMs()))
                .flatMap(this::invokeDrains)
                .onFailure().recoverWithItem(e -> {
                    LOG.warnf("destinations: could not ask for a drain (the scheduled one delivers): %s", e.toString());
                    return null;
                });
    }

    /**
     * Starts the delivery that a request to the API made due for a destination of {@code queue}: a
     * redrive, a resume or a replay. In the server shape the caller's {@link #refreshSoon} (or
     * {@link #paused}) wakes the workers, and this does nothing. In the Lambda shape it asks for a
     * drain of the queue at once, whatever drain was asked for lately (a drain already running read
     * the pauses and the redrives due when it began, and would not see this request), and marks it
     * asked for as a store does; it completes once the drain was asked for (before the invocation
     * answers: a frozen instance sends nothing). It never fails: a drain that could not be asked for
     * is logged, and the scheduled drain delivers.
     *
     * @param queue the destination's queue (a drain of any queue also runs every redrive due)
     * @return completes when the drain was asked for
     */
    public Uni<Void> drainNow(String queue) {
        if (config == null || !config.enabled() || !invocation || !trigger.isResolvable()) {
            return Uni.createFrom().voidItem();
        }
        Set<String> withConfigured = configuredQueues();
        return drains.ask(List.of(queue), withConfigured, 0)
                .flatMap(this::invokeDrains)
                .onFailure().recoverWithItem(e -> {
                    LOG.warnf("destinations of queue %s: could not ask for a drain (the scheduled one delivers): %s",
                            queue, e.toString());
                    return null;
                });
    }

    /** Asks the {@link DrainTrigger} for a drain of each queue, off the event loop; one it could not ask for is logged. */
    private Uni<Void> invokeDrains(List<String> due) {
        if (due.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return Uni.createFrom().<Void>item(() -> {
            for (String q : due) {
                try {
                    trigger.get().requestDrain(q);
                } catch (RuntimeException e) {
                    LOG.warnf("destinations of queue %s: could not ask for a drain (the scheduled one delivers): %s",
                            q, e.toString());
                    clearQuietly(List.of(q));
                }
            }
            return null;
        }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }

    /**
     * Invocation mode: the queues among {@code queues} that may have a destination: those the
     * configuration gives one, those this instance read as having one within
     * {@link #DESTINATION_LOOKUP_TTL_MS}, and those it has not read lately that the database gives
     * one (one statement for all of them; what it read is kept).
     */
    private Uni<List<String>> withDestination(Set<String> queues, Set<String> withConfigured) {
        long now = System.nanoTime();
        List<String> candidates = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        for (String q : queues) {
            Lookup l = withConfigured.contains(q) ? null : destinationLookups.get(q);
            if (withConfigured.contains(q) || l != null && now - l.untilNanos() < 0 && l.hasDestination()) {
                candidates.add(q);
            } else if (l == null || now - l.untilNanos() >= 0) {
                unknown.add(q);
            }
        }
        if (unknown.isEmpty()) {
            return Uni.createFrom().item(candidates);
        }
        long generation = destinationsChanged.get();
        return drains.withDestinations(unknown).map(found -> {
            if (destinationsChanged.get() == generation) {
                if (destinationLookups.size() + unknown.size() > DESTINATION_LOOKUP_MAX) {
                    destinationLookups.clear();
                }
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DESTINATION_LOOKUP_TTL_MS);
                unknown.forEach(q -> destinationLookups.put(q, new Lookup(found.contains(q), until)));
            }
            for (String q : unknown) {
                if (found.contains(q)) {
                    candidates.add(q);
                }
            }
            return candidates;
        });
    }

    /**
     * Wakes this instance's workers for a queue's destinations (server shape; nothing in the Lambda shape).
     *
     * @param queue the queue
     */
    public void wake(String queue) {
        if (!sending() || invocation) {
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
     * again after the delete; the group's rows are removed once its workers have stopped. Its
     * meters are removed.
     *
     * @param name the destination deleted (through the API, or gone from the configuration)
     */
    public void forget(String name) {
        drop(name);
        unregister(name);
        Sender current = sender;
        if (current != null) {
            current.forget(name); // its connections
        }
    }

    /**
     * Makes this instance's delivery state of a destination whose cursors were moved (a replay)
     * again: its workers drop the batches they hold at their next step (a pop, an attempt), and the
     * next read of the destinations starts it afresh from the cursors. Its meters stay and count on.
     *
     * @param name the destination replayed
     */
    public void restart(String name) {
        drop(name);
    }

    /** Stops a destination's workers at their next step and drops its slot; its group's orphan rows are swept once they stopped. */
    private void drop(String name) {
        Slot s = slots.remove(name);
        completedAcks.remove(name);
        if (s != null) {
            s.remove();
            removed.add(s);
        }
    }

    /**
     * Removes a destination's meters from the registry (whether or not this instance holds its
     * slot now), so that a deleted destination is no longer exported; a destination made again
     * under the name registers them anew (its counters from zero, as after a restart).
     */
    private void unregister(String name) {
        MeterRegistry r = registry != null && registry.isResolvable() ? registry.get() : null;
        if (r == null) {
            return;
        }
        for (String meter : METERS) {
            r.find(meter).tag("destination", name).meters().forEach(r::remove);
        }
    }

    /**
     * A pause or resume this instance has just stored: applied to the destination's workers at once,
     * so that once the API answers, this instance starts no batch and no attempt for a paused
     * destination (an attempt already under way ends; a backoff ends at once; the worker then
     * releases its lease, so that the resume delivers the batch's unsettled messages at once). Other
     * instances read it at their next timer round ({@code exactly.delivery.poll-ms}).
     */
    public void paused(String name, boolean paused) {
        pausesChanged.incrementAndGet();
        Slot s = slots.get(name);
        if (s != null) {
            s.pause(paused);
        }
        refreshSoon();
    }

    /**
     * A destination this instance has just created or replaced through the API, committed: a
     * replaced one's workers here take its settings from their next attempt on, before the API
     * answers, rather than at the read of the destinations that {@link #refreshSoon} queues (which
     * also starts a new one). Other instances read it at their next timer round.
     */
    public void replaced(Destination d) {
        destinationsChanged.incrementAndGet(); // a timer round that read the destinations before leaves these settings
        Slot s = slots.get(d.name());
        if (s != null && s.d.queue().equals(d.queue()) && !s.d.configured()) {
            s.d = d;
        }
        refreshSoon();
    }

    /**
     * Reads the destinations again at once (after a PUT or DELETE on this instance) and wakes them;
     * in invocation mode, forgets which queues were read as having a destination.
     */
    public void refreshSoon() {
        destinationsChanged.incrementAndGet();
        destinationLookups.clear();
        if (running && timer != null) {
            timer.execute(this::tick);
        }
    }

    /**
     * What a drain did.
     *
     * @param batches batches popped or resumed (each up to exactly.delivery.batch messages of one partition)
     * @param more    true when it stopped at its deadline, or before it because the next attempt would
     *                not have ended in time, with work perhaps left, or when a parked partition is due
     *                within the next drain's time (the invocation's result, written as JSON by the
     *                runtime; the function then asks for the next drain at once)
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record DrainReport(long batches, boolean more) {
    }

    /**
     * Delivers, in this invocation, what is due for the destinations of {@code queue} (null: of every
     * queue), until nothing is due or the deadline: their new messages, their retries whose backoff
     * ended, the partitions earlier drains parked, and (for every queue) requested redrives.
     * Several partitions are delivered at once, up to exactly.delivery.workers. No attempt starts
     * that could outlast the deadline: its partition is parked under its lease for a later drain, and
     * the report says more is left. An attempt's timeout is at most half the drain's time less its
     * margin ({@link #attemptMs}).
     * Before it ends it clears the queues' drain marks and looks once more, so that a store that
     * asked for no drain while this one ran is delivered. A partition parked by a retry's backoff that
     * is due before the deadline stops it is waited for and resumed; one due within the next drain's
     * reach makes the report ask for that drain at once ({@link #parkedWait}).
     *
     * @param queue          the queue whose destinations deliver, or null for all of them
     * @param deadlineMillis when to stop, {@link System#currentTimeMillis()} time
     * @return what it did
     * @throws RuntimeException when the database cannot be read (the destinations, their state)
     */
    public synchronized DrainReport drain(String queue, long deadlineMillis) {
        if (config == null || !config.enabled()) {
            return new DrainReport(0, false);
        }
        startPools();
        long before = batches.get();
        cutShort.set(false);
        drainMs = Math.max(0, deadlineMillis - System.currentTimeMillis());
        deadline = deadlineMillis;
        try {
            refresh();
            List<Slot> mine = new ArrayList<>();
            Set<String> queues = new HashSet<>();
            for (Slot s : slots.values()) {
                if (queue == null || s.d.queue().equals(queue)) {
                    mine.add(s);
                    queues.add(s.d.queue());
                }
            }
            if (queue != null) {
                queues.add(queue);
            }
            // ends only after: clear the marks, then a round that found nothing and marked nothing
            boolean cleared = false;
            while (true) {
                long seen = batches.get();
                for (Slot s : mine) {
                    kick(s, 1);
                }
                awaitIdle(mine, cleared ? Set.of() : queues);
                if (pastDeadline() || cutShort.get()) {
                    return new DrainReport(batches.get() - before, true);
                }
                if (cleared && batches.get() == seen) {
                    boolean[] soon = {false};
                    long wait = parkedWait(mine, soon);
                    if (wait >= 0) {
                        if (!sleepUntilDue(wait)) {
                            return new DrainReport(batches.get() - before, true);
                        }
                        continue; // resume it: the next round's workers claim what is due
                    }
                    return new DrainReport(batches.get() - before, soon[0]);
                }
                if (cleared) {
                    cleared = false; // found more after clearing: mark again while delivering it
                } else {
                    drains.clear(queues).stage(Dispatcher::db);
                    cleared = true;
                }
            }
        } finally {
            deadline = 0;
        }
    }

    /**
     * Starts a configured destination not started yet, unless its name is held on another queue (the
     * look and the start are one statement): names are unique across queues, so one whose name is held
     * there (by a destination defined through the API there, or by the rows an earlier destination of
     * that name left there) delivers nothing, and an API destination there goes on delivering, until
     * that is deleted there. Logged as an error once while it lasts; tried again at each read of the
     * destinations. Called again for a started one every
     * {@link DestinationRepository#CONFIGURED_MARK_EVERY_MS} ({@link #refresh}): the statement marks it
     * as configured, and starts it again if its rows were deleted meanwhile.
     *
     * @return whether it started or is still started (it is then in {@link #started})
     */
    private boolean startIfFree(Destination d) {
        DestinationRepository.Holder holder = repository.startUnlessHeld(d).stage(Dispatcher::db);
        if (holder == null) {
            started.add(d.name());
            if (clashes.remove(d.name()) != null) {
                LOG.infof("destinations: exactly.destinations.%s: its name is no longer held on another queue; it starts "
                        + "on queue '%s' now, at the end of each partition", d.name(), d.queue());
            }
            return true;
        }
        started.remove(d.name()); // started before, its rows deleted since and the name taken on another queue
        if (!holder.equals(clashes.put(d.name(), holder))) {
            LOG.errorf("destinations: exactly.destinations.%s is on queue '%s', but the name '%s' is held on queue '%s' by %s; "
                    + "names are unique across queues, so it delivers nothing until that is deleted: "
                    + "DELETE /api/v1/queues/%s/destinations/%s (or give it another name). Once deleted, it starts at the "
                    + "end of each partition of '%s'", d.name(), d.queue(), d.name(), holder.queue(),
                    holder.api() ? "a destination defined through the API"
                            : holder.configured() ? "a destination another running instance's configuration defines there"
                            : "the rows an earlier destination of that name left there (its figures, cursors and dead letters)",
                    holder.queue(), d.name(), d.queue());
        }
        return false;
    }

    /**
     * The configured destination of that name not started because its name is held on another queue,
     * with what holds it; null when there is none (as far as this instance read).
     */
    public DestinationRepository.Holder clash(String name) {
        return clashes.get(name);
    }

    /**
     * Invocation mode: starts the configured destinations this process has not started yet (their
     * consumer groups begin after what each partition holds now), before the invocation stores
     * anything, so that no message stored through an instance that has a destination in its
     * configuration is missed by it, whichever instance drains. Once per process; a database that is
     * away leaves it for the next invocation.
     */
    public void startConfigured() {
        if (!invocation || started.size() >= configured.all().size()) {
            return;
        }
        try {
            for (Destination d : configured.all().values()) {
                if (!started.contains(d.name())) {
                    startIfFree(d);
                }
            }
        } catch (RuntimeException e) {
            LOG.debugf("destinations: cannot start the configured ones now: %s", e.toString());
        }
    }

    /**
     * Waits until the slots' workers stopped and every redrive this instance runs ended (a drain of
     * one queue starts the redrives due of every destination: they end within it, not after it, since
     * nothing runs once the invocation has answered), or shortly after the deadline. Meanwhile it
     * marks the drain of {@code touch} as asked for (every half debounce period, each mark written
     * before going on), so that stores in those queues ask for no other drain while this one runs,
     * and looks at the slots every {@code pollMs} as the server's timer does ({@link #nudge}), so that
     * a message stored meanwhile (by another instance) in a partition no worker holds is delivered
     * by a free worker, not once the busy ones end. It leaves out a slot whose next attempt would not
     * end before the deadline: the drain's last look after this wait reports it as left.
     */
    private void awaitIdle(List<Slot> mine, Set<String> touch) {
        long until = deadline + DRAIN_MARGIN_MS / 2;
        long touchEvery = Math.max(50, config.drainDebounceMs() / 2);
        long touched = System.currentTimeMillis();
        long nudged = System.currentTimeMillis();
        while (System.currentTimeMillis() < until) {
            if (!touch.isEmpty() && System.currentTimeMillis() - touched >= touchEvery) {
                touched = System.currentTimeMillis();
                try {
                    drains.touch(touch).stage(Dispatcher::db);
                } catch (RuntimeException e) {
                    LOG.debugf("destinations: cannot mark a drain: %s", e.toString());
                }
            }
            boolean idle = true;
            for (Slot s : mine) {
                if (s.inFlight.get() > 0) {
                    idle = false;
                    break;
                }
            }
            for (Slot s : slots.values()) {
                if (s.redriving.get() > 0) {
                    idle = false;
                    break;
                }
            }
            if (idle) {
                return;
            }
            if (System.currentTimeMillis() - nudged >= config.pollMs()) {
                nudged = System.currentTimeMillis();
                for (Slot s : mine) {
                    if (!outlasts(attemptMs(s.d))) {
                        nudge(s);
                    }
                }
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Invocation mode, at a drain's end: how long to wait for a partition that a drain left parked
     * for one of {@code mine} (paused and deleted ones apart) and whose next attempt is due before
     * this drain's deadline would stop it: at least 50 ms; -1 when there is none to wait for. Then
     * {@code soon[0]} tells whether the first such partition is due within what the next drain can
     * wait for (its time less an attempt and the margin): that drain is asked for at once, so a short
     * backoff parked at a drain's end waits for no schedule.
     */
    private long parkedWait(List<Slot> mine, boolean[] soon) {
        List<String> names = new ArrayList<>();
        long attempt = 0;
        for (Slot s : mine) {
            if (!s.paused && !s.removed) {
                names.add(s.d.name());
                attempt = Math.max(attempt, attemptMs(s.d));
            }
        }
        if (names.isEmpty() || !running) {
            return -1;
        }
        Long due;
        try {
            due = drains.dueInMs(names).stage(Dispatcher::db);
        } catch (RuntimeException e) {
            LOG.debugf("destinations: cannot read the parked partitions: %s", e.toString());
            return -1;
        }
        if (due == null) {
            return -1;
        }
        if (!outlasts(due + attempt)) {
            return Math.max(50, due);
        }
        soon[0] = due + attempt + DRAIN_MARGIN_MS <= drainMs;
        return -1;
    }

    /** Sleeps {@code ms} (less if the deadline comes first); false when stopped or interrupted. */
    private boolean sleepUntilDue(long ms) {
        try {
            Thread.sleep(Math.max(0, Math.min(ms, deadline - System.currentTimeMillis())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return running;
    }

    private boolean pastDeadline() {
        return System.currentTimeMillis() >= deadline;
    }

    /**
     * An attempt's timeout in milliseconds: the destination's timeoutMs; in invocation mode at most
     * half of what a drain has after its margin, so that an attempt fits in every drain (a timeoutMs
     * longer than the function's timeout would otherwise never start) and a drain spends at least
     * half its time sending.
     */
    int attemptMs(Destination d) {
        if (!invocation) {
            return d.timeoutMs();
        }
        long cap = Math.max(1, (drainMs - DRAIN_MARGIN_MS) / 2);
        return (int) Math.min(d.timeoutMs(), cap);
    }

    /**
     * Invocation mode: whether an attempt for {@code d} started now would end past the drain's
     * deadline; when so, the drain is cut short: it asks for the next drain at its end.
     */
    private boolean attemptOutlasts(Destination d) {
        if (outlasts(attemptMs(d))) {
            cutShort.set(true);
            return true;
        }
        return false;
    }

    /** Invocation mode: whether {@code ms} from now is past the drain's deadline (less its margin). */
    private boolean outlasts(long ms) {
        return invocation && System.currentTimeMillis() + ms + DRAIN_MARGIN_MS > deadline;
    }

    private void clearQuietly(List<String> queues) {
        drains.clear(queues).subscribe().with(x -> { }, e -> LOG.debugf("destinations: cannot clear a drain mark: %s", e.toString()));
    }

    private void tick() {
        try {
            refresh();
        } catch (RuntimeException e) {
            LOG.debugf("destinations: cannot read them now: %s", e.toString());
        }
        for (Slot s : slots.values()) {
            nudge(s);
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

    /**
     * The timer's look at a destination (and, in a drain, every {@code pollMs}): a worker when none
     * runs; one more when every worker is held by its batch (a retry's backoff, a slow receiver) and
     * none has popped for a round, so that other partitions' messages do not wait for it.
     */
    private void nudge(Slot s) {
        int n = s.inFlight.get();
        if (n > 0 && System.nanoTime() - s.poppedAt > TimeUnit.MILLISECONDS.toNanos(config.pollMs())) {
            kick(s, Math.min(config.workers(), n + 1));
        } else {
            kick(s, 1);
        }
    }

    private void refresh() {
        long changes = destinationsChanged.get();
        Map<String, Destination> now = new HashMap<>();
        // every CONFIGURED_MARK_EVERY_MS the started ones are started again: that marks them as configured,
        // so that every instance on the database refuses to change or delete them through the API
        long at = System.currentTimeMillis();
        boolean mark = at - configuredMarkedAt >= DestinationRepository.CONFIGURED_MARK_EVERY_MS;
        for (Destination d : configured.all().values()) {
            if ((!mark && started.contains(d.name())) || startIfFree(d)) {
                now.put(d.name(), d);
            }
        }
        if (mark) {
            configuredMarkedAt = at;
        }
        for (Destination d : repository.list().stage(Dispatcher::db)) {
            now.putIfAbsent(d.name(), d); // a configured destination of that name on its queue takes over
        }
        for (Destination d : now.values()) {
            Slot s = slots.get(d.name());
            if (s == null || !s.d.queue().equals(d.queue())) {
                // held paused until this round's read of the paused ones below (or the next round's, which a
                // pause made meanwhile queued): a push's wake-up in between must not start a batch of a
                // destination paused before this instance knew it
                Slot fresh = new Slot(d);
                fresh.paused = true;
                slots.put(d.name(), fresh);
            } else if (destinationsChanged.get() == changes) {
                s.d = d;
            } // else this instance replaced a destination since the read: its settings stand, and the round it queued reads again
        }
        for (String name : Set.copyOf(slots.keySet())) {
            if (!now.containsKey(name)) {
                forget(name);
            }
        }
        sweepRemoved();
        long pauses = pausesChanged.get();
        Set<String> paused = repository.paused().stage(Dispatcher::db);
        if (pausesChanged.get() == pauses) { // else a pause made meanwhile stands, and the round it queued reads again
            for (Slot s : slots.values()) {
                s.pause(paused.contains(s.d.name()));
            }
        }
        for (Map.Entry<String, Long> due : repository.redrivesDue().stage(Dispatcher::db).entrySet()) {
            Slot s = slots.get(due.getKey());
            if (s != null && !s.paused) {
                startRedrives(s, due.getValue());
            }
        }
    }

    /**
     * Starts redrive workers for a destination with {@code due} redriven dead letters no worker holds,
     * up to exactly.delivery.workers of them at once and no more than those: each sends one claimed dead letter after another (a claim takes one row, so they
     * never send the same), and one whose message fails again through its retries holds back only
     * itself, not the rest of the redrive.
     */
    private void startRedrives(Slot s, long due) {
        long limit = Math.min(config.workers(), s.redriving.get() + due);
        for (int n = s.redriving.get(); n < limit && s.redriving.compareAndSet(n, n + 1); n = s.redriving.get()) {
            try {
                workers.execute(() -> {
                    try {
                        while (sending() && !s.paused && !s.removed && !pastDeadline() && redriveOne(s)) {
                            // one redriven dead letter after another
                        }
                    } catch (RuntimeException e) {
                        stopped(s, "redrive", e);
                    } finally {
                        s.redriving.decrementAndGet();
                    }
                });
            } catch (RuntimeException e) {
                s.redriving.decrementAndGet();
                return;
            }
        }
    }

    /** Removes the rows a deleted destination's last pop may have written back, once its workers stopped. */
    private void sweepRemoved() {
        for (Slot s : removed) {
            if (s.inFlight.get() == 0 && s.redriving.get() == 0) {
                repository.dropOrphanGroup(s.d.name(), s.d.group()).stage(Dispatcher::db);
                removed.remove(s);
            }
        }
    }

    private void gauges() {
        Set<String> queues = new HashSet<>();
        slots.values().forEach(s -> queues.add(s.d.queue()));
        for (String q : queues) {
            var lags = stats.groups(q).stage(Dispatcher::db);
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
     * to exactly.delivery.workers after a pop that saw another partition due besides its own, or
     * after a parked partition was resumed.
     */
    private void kick(Slot s, int max) {
        s.dirty = true;
        while (sending() && !s.paused && !s.removed && !pastDeadline()) {
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
        work(s, null, 0);
    }

    /**
     * A worker's loop: pops and delivers until nothing more was due. Given a batch another worker's
     * pop leased for it ({@code first}, under a slot reserved for it), it delivers that first.
     */
    private void work(Slot s, ConsumeRepository.StoredBatch first, long leaseEndsAt) {
        try {
            if (first != null) {
                long released = s.releases.get();
                List<LeasedMessage> batch = first.messages();
                deliverLeased(s, s.d, batch, leaseEndsAt, batch.stream().anyMatch(m -> m.attempts() > 1));
                // as after a pop of its own (the other worker started one for what else was due)
                if (!first.moreHere() && s.releases.get() == released && !s.dirty) {
                    return;
                }
            }
            while (sending() && !s.paused && !s.removed && !pastDeadline()) {
                s.dirty = false;
                if (invocation && resumeParked(s)) {
                    kick(s, config.workers());
                    continue;
                }
                Found found = deliverBatch(s);
                if (found == Found.MORE) {
                    continue;
                }
                // nothing more was due when the pop looked: another pop is worth it only after a
                // wake-up or the timer since (they set dirty), else it would find nothing
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
        /** When {@link #lastError} happened (the failed attempt's end), or null with it. */
        java.time.OffsetDateTime lastErrorAt;
        /**
         * Why the last message dead-lettered was (its dead letter's error): its last answer, or why no
         * attempt was left, which leaves {@link #lastError}, the destination's last answer, as it is.
         */
        String deadError;
        /** The batch's partition. */
        long partitionId;
        /** Offsets settled (acked): their recorded attempts, if any, are deleted with the ack. */
        final List<Long> recorded = new ArrayList<>();

        /** Forgets the figures gathered (written, or not to be written). */
        void clearFigures() {
            delivered = 0;
            failed = 0;
            lastError = null;
            lastErrorAt = null;
            deadError = null;
        }

        /** Forgets the figures and the offsets settled. */
        void clear() {
            clearFigures();
            recorded.clear();
        }
    }

    /** How a message's attempts ended. */
    private enum Outcome { DELIVERED, DEAD, ABORTED, PARKED }

    /** Keeps the right to deliver (a lease, a redrive claim) for at least {@code needMs} more; false when lost. */
    private interface Keeper {
        boolean keep(long needMs);
    }

    /**
     * Sends one message until it is delivered, its attempts are used up, or the worker must stop.
     * {@code record} gets the number of attempt 1 once it failed and another follows, and the
     * number of each later attempt before it is sent (write-ahead: an attempt cut off by a kill is
     * counted; one cut off during attempt 1 repeats attempt 1, whose outcome is unknown). Then
     * {@code beforeWait} runs before a backoff (writing what is settled so far). A {@code first}
     * past maxAttempts (the last attempt was recorded, then cut off) dead-letters without sending.
     * Each attempt reads the slot's destination as it is then (URL, type, timeout, maxAttempts,
     * backoff), so a PUT reaches the next attempt; a maxAttempts lowered below the attempts made
     * dead-letters. An attempt that fails because the stop cut it off is {@link Outcome#ABORTED}.
     *
     * @return the outcome; {@code attemptsUsed[0]} is the number of the last attempt made; for
     *         {@link Outcome#PARKED} (invocation mode: the next attempt, or the backoff before it, would
     *         outlast the drain), {@code attemptsUsed[0]} is the next attempt's number and
     *         {@code attemptsUsed[1]} the milliseconds until it is due; for {@link Outcome#ABORTED} by
     *         the stop in a backoff, {@code attemptsUsed[1]} is the milliseconds that backoff had left (else
     *         it is left as it was, 0)
     */
    private Outcome attempts(Slot s, Sender.Outgoing out, int first, Keeper keeper,
                             java.util.function.IntConsumer record, Runnable beforeWait, Tally tally, int[] attemptsUsed) {
        int attempt = first;
        while (true) {
            if (!sending() || s.paused || s.removed) {
                return Outcome.ABORTED; // no attempt begins once the stop was signalled
            }
            Destination d = s.d; // as it is now: a PUT reaches the next attempt
            if (attempt > d.maxAttempts()) {
                attemptsUsed[0] = attempt - 1;
                tally.deadError = "no attempt left: " + (attempt - 1) + " made, maxAttempts " + d.maxAttempts()
                        + " (maxAttempts was lowered since, or the last attempt got no answer because its instance "
                        + "stopped or its lease ended; the destination's lastError holds the last answer it got)";
                count(s.dead);
                return Outcome.DEAD;
            }
            if (attemptOutlasts(d)) {
                attemptsUsed[0] = attempt;
                attemptsUsed[1] = 0;
                return Outcome.PARKED;
            }
            if (!keeper.keep(attemptMs(d) + 5_000L)) {
                return Outcome.ABORTED;
            }
            if (attempt > 1) {
                record.accept(attempt);
            }
            attemptsUsed[0] = attempt;
            Sender.Result r = send(d, out, attempt);
            if (r.delivered()) {
                tally.delivered++;
                count(s.delivered);
                return Outcome.DELIVERED;
            }
            if (!running) {
                return Outcome.ABORTED; // cut off by the stop: its outcome is unknown, nothing is counted
            }
            tally.failed++;
            count(s.failed);
            tally.lastError = clip(r.error());
            tally.lastErrorAt = java.time.OffsetDateTime.now();
            if (attempt >= d.maxAttempts() || r.permanent()) {
                tally.deadError = tally.lastError;
                count(s.dead);
                return Outcome.DEAD;
            }
            long wait = backoff(d, attempt, r.retryAfterMs());
            if (attempt == 1) {
                record.accept(attempt);
            }
            beforeWait.run();
            if (outlasts(wait + attemptMs(d))) {
                attemptsUsed[0] = attempt + 1;
                attemptsUsed[1] = (int) Math.min(wait, Integer.MAX_VALUE);
                return Outcome.PARKED;
            }
            if (!keeper.keep(wait + attemptMs(d) + 5_000L)) {
                return Outcome.ABORTED;
            }
            long dueAt = System.currentTimeMillis() + wait;
            if (!s.sleep(wait)) {
                if (stopping) {
                    // the stop: what is left of the wait is kept across the restart (the lease, or the claim, lasts until then)
                    attemptsUsed[1] = (int) Math.min(Math.max(dueAt - System.currentTimeMillis(), 0), Integer.MAX_VALUE);
                }
                return Outcome.ABORTED;
            }
            attempt++;
        }
    }

    /**
     * Makes one attempt. A sender that throws (a setting its client refuses, such as a stored URL
     * whose port no client takes, or a fault of the client) fails that attempt with the exception
     * as its error: it is retried and dead-lettered like any failed attempt, rather than stopping
     * the worker, which would hold the partition with no attempt counted. Senders make no database
     * call, so no such exception means the database is away.
     */
    private Sender.Result send(Destination d, Sender.Outgoing out, int attempt) {
        d = d.withTimeoutMs(attemptMs(d));
        try {
            return sender.send(d, out, attempt);
        } catch (RuntimeException e) {
            LOG.debugf(e, "destination %s: attempt %d failed in the sender", d.name(), attempt);
            return new Sender.Result(false, 0, null, "attempt failed before an answer: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    /**
     * The WARN of one dead-lettering of a message for a destination (its first, or a redrive's that
     * failed again): where the message is stored, its id, the attempts and the last error; never its
     * payload nor the destination's secret.
     */
    private static void warnDeadLettered(Destination d, UUID messageId, String queue, String partition, long offset,
                                         int attempts, String error) {
        LOG.warnf("destination %s: message %s (%s/%s offset %d) dead-lettered after %s: %s",
                d.name(), messageId, queue, partition, offset, attemptCount(attempts), error);
    }

    /** @return "1 attempt", "2 attempts": a count of attempts for a log line */
    static String attemptCount(int n) {
        return n + (n == 1 ? " attempt" : " attempts");
    }

    /** What a worker's pop found. */
    private enum Found {
        /** Nothing. */
        NONE,
        /** A batch, and nothing else was due when the pop looked. */
        LAST,
        /** A batch, and its partition or another had more messages due when the pop looked. */
        MORE
    }

    /** A batch another worker's pop leased, delivered by a worker started for it ({@link #work(Slot, ConsumeRepository.StoredBatch, long)}). */
    private final class Handed implements Runnable {
        private final Slot s;
        private final ConsumeRepository.StoredBatch batch;
        private final long leaseEndsAt;

        Handed(Slot s, ConsumeRepository.StoredBatch batch, long leaseEndsAt) {
            this.s = s;
            this.batch = batch;
            this.leaseEndsAt = leaseEndsAt;
        }

        @Override
        public void run() {
            work(s, batch, leaseEndsAt);
        }

        /** No worker took it (the stop): its lease ends now, so its messages are delivered again at once. */
        void giveUp() {
            try {
                release(s, s.d, batch.messages().get(0));
            } finally {
                s.inFlight.decrementAndGet();
            }
        }
    }

    /**
     * Reserves up to {@code max} more workers of the destination at once (its slots in
     * {@link Slot#inFlight}), fewer when others run or none when it may not start any.
     *
     * @return how many were reserved; each is given back, or taken by a worker started with it
     */
    private int reserve(Slot s, int max) {
        while (max > 0 && sending() && !s.paused && !s.removed && !pastDeadline()) {
            int n = s.inFlight.get();
            int free = Math.min(max, config.workers() - n);
            if (free <= 0) {
                return 0;
            }
            if (s.inFlight.compareAndSet(n, n + free)) {
                return free;
            }
        }
        return 0;
    }

    /**
     * Leases up to one partition for each worker the destination could still start, this one
     * included (one pop, {@link ConsumeRepository#popStored}): delivers the first batch here and hands
     * each other one to a worker started for it, under a slot reserved before the pop (those not
     * used are given back).
     */
    private Found deliverBatch(Slot s) {
        Destination d = s.d;
        if (!sending() || attemptOutlasts(d)) {
            return Found.NONE;
        }
        int leaseSeconds = leaseSeconds(d);
        s.poppedAt = System.nanoTime();
        // a worker starts for each batch handed on (threads start on demand): none waits under its lease
        int reserved = reserve(s, config.workers() - 1);
        List<ConsumeRepository.StoredBatch> popped;
        try {
            // the destination counts its attempts and dead-letters on its own: the queue's retryLimit does not apply
            popped = consume.popStored(new PopRequest(d.queue(), null, d.group(), config.batch(), leaseSeconds, 0),
                    true, 1 + reserved).stage(Dispatcher::db);
        } catch (RuntimeException e) {
            s.inFlight.addAndGet(-reserved);
            throw e;
        }
        if (popped.isEmpty()) {
            s.inFlight.addAndGet(-reserved);
            return Found.NONE;
        }
        for (ConsumeRepository.StoredBatch b : popped) {
            held.add(b.messages().get(0).leaseId());
        }
        batches.addAndGet(popped.size());
        long leaseEndsAt = System.currentTimeMillis() + leaseSeconds * 1000L;
        List<ConsumeRepository.StoredBatch> mine = new ArrayList<>();
        mine.add(popped.get(0));
        for (int i = 1; i < popped.size(); i++) {
            ConsumeRepository.StoredBatch other = popped.get(i);
            if (reserved == 0) {
                mine.add(other); // never so: the pop leases no more partitions than slots were reserved
                continue;
            }
            try {
                workers.execute(new Handed(s, other, leaseEndsAt));
                reserved--;
            } catch (RuntimeException e) {
                mine.add(other); // no worker to take it (the stop): delivered here, which releases it then
            }
        }
        s.inFlight.addAndGet(-reserved);
        boolean moreDue = popped.get(0).moreDue();
        if (moreDue) {
            // another partition was due: one more worker for it (which, finding more, starts the next)
            kick(s, config.workers());
        }
        long released = s.releases.get();
        boolean moreHere = false;
        for (int i = 0; i < mine.size(); i++) {
            List<LeasedMessage> batch = mine.get(i).messages();
            try {
                deliverLeased(s, d, batch, leaseEndsAt, batch.stream().anyMatch(m -> m.attempts() > 1));
            } catch (RuntimeException e) {
                // the batches after it are this worker's alone: released, so that they are delivered again at once
                for (ConsumeRepository.StoredBatch left : mine.subList(i + 1, mine.size())) {
                    release(s, d, left.messages().get(0));
                }
                throw e;
            }
            moreHere |= mine.get(i).moreHere();
        }
        // a lease of this destination released early left messages to deliver again at once
        return moreDue || moreHere || s.releases.get() != released ? Found.MORE : Found.LAST;
    }

    /**
     * Invocation mode: resumes the destination's parked partition that is due first, under the lease
     * its drain kept; false when none is due. A lease lost meanwhile (it expired: no drain ran in
     * time) leaves those messages to the group's redelivery; a lease whose messages the queue's
     * retention purged meanwhile (none left to send) is released, so that the group goes on.
     */
    private boolean resumeParked(Slot s) {
        Destination d = s.d;
        if (attemptOutlasts(d)) {
            return false;
        }
        int leaseSeconds = leaseSeconds(d);
        DrainRepository.Parked p = drains.claim(d.name(), leaseSeconds).stage(Dispatcher::db);
        if (p == null) {
            return false;
        }
        ConsumeRepository.Extension e = consume.extend(p.leaseId(), leaseSeconds, true).stage(Dispatcher::db);
        drains.unpark(d.name(), p.partitionId(), p.leaseId()).stage(Dispatcher::db);
        if (e == null || !e.extended()) {
            LOG.debugf("destination %s: a parked partition's lease expired; the group delivers it again", d.name());
            return true;
        }
        var lease = e.lease();
        List<LeasedMessage> batch = new ArrayList<>();
        for (DrainRepository.Message m : drains.messages(p.partitionId(), d.group(), p.nextOffset(), lease.toOffset()).stage(Dispatcher::db)) {
            batch.add(new LeasedMessage(m.messageId(), m.transactionId(), lease.queue(), lease.partition(), p.partitionId(),
                    m.offset(), m.payload(), m.contentType(), batch.isEmpty() ? p.attempt() : 1, p.leaseId(), null));
        }
        batches.incrementAndGet();
        if (batch.isEmpty()) {
            // the queue's retention purged what the batch had left meanwhile: nothing to send under
            // this lease; it ends now, so that the group's next pop goes on from what is kept
            LOG.debugf("destination %s: a parked partition's messages were purged; its lease is released", d.name());
            releaseLease(s, p.leaseId(), "a purged parked partition");
            return true;
        }
        held.add(p.leaseId());
        deliverLeased(s, d, batch, System.currentTimeMillis() + leaseSeconds * 1000L, true);
        return true;
    }

    /**
     * Delivers a leased batch of one partition, acking what it settled: in offset order, one message
     * at a time, for an ordered destination; all at once otherwise ({@link #deliverAtOnce}). A
     * worker stopped by a pause, a deletion, a lost lease or the stop releases the lease once it
     * wrote what it settled (at the stop too: the interrupt cuts the attempt, not those statements,
     * {@link #db}); a parked batch keeps it.
     *
     * @param leasedBefore whether the batch was leased before (only then may attempts be recorded for it)
     */
    private void deliverLeased(Slot s, Destination d, List<LeasedMessage> batch, long leaseEndsAt, boolean leasedBefore) {
        try {
            if (!d.ordered() && batch.size() > 1) {
                deliverAtOnce(s, d, batch, leaseEndsAt, leasedBefore);
            } else {
                deliverInOrder(s, d, batch, leaseEndsAt, leasedBefore);
            }
        } finally {
            held.remove(batch.get(0).leaseId()); // acked, released, parked, or left to run out while running
        }
    }

    /** {@link #deliverLeased} one message at a time, in offset order. */
    private void deliverInOrder(Slot s, Destination d, List<LeasedMessage> batch, long leaseEndsAt, boolean leasedBefore) {
        long[] leaseEnds = {leaseEndsAt};
        List<AckCommand> acks = new ArrayList<>();
        Tally tally = new Tally();
        tally.partitionId = batch.get(0).partitionId();
        Runnable flush = () -> flush(s, d, acks, tally);
        Map<Long, Integer> recorded = recordedAttempts(d, batch, leasedBefore);
        boolean release = false;
        long holdMs = 0;
        boolean parked = false;
        try {
            for (LeasedMessage m : batch) {
                Sender.Outgoing out = new Sender.Outgoing(m.messageId().toString(), m.queue(), m.partition(),
                        m.offset(), m.transactionId(), m.contentType(), m.payload());
                Keeper lease = needMs -> {
                    leaseEnds[0] = keepLease(m, leaseEnds[0], needMs);
                    return leaseEnds[0] >= 0;
                };
                int first = firstAttempt(m, recorded);
                int[] used = {first, 0};
                Outcome o = attempts(s, out, first, lease,
                        a -> recordAttempt(s, m, a),
                        flush, tally, used);
                if (o == Outcome.ABORTED) {
                    release = true;
                    holdMs = used[1];
                    return; // unacked from here: released, they are delivered again at once (or once a backoff the stop cut ends)
                }
                if (o == Outcome.PARKED) {
                    // kept for a later drain: the lease covers the wait and that drain's start
                    parked = true;
                    flush.run();
                    if (lease.keep(used[1] + leaseSeconds(d) * 1000L)) {
                        drains.park(d.name(), m.partitionId(), m.leaseId(), m.offset(), used[0], used[1]).stage(Dispatcher::db);
                    }
                    return;
                }
                if (o == Outcome.DEAD) {
                    deadLetter(s, m, used[0], tally.deadError);
                }
                acks.add(ack(d, m));
                tally.recorded.add(m.offset());
            }
        } catch (RuntimeException e) {
            release = !running && !parked; // cut off by the stop
            throw e;
        } finally {
            settle(release, holdMs, s, d, batch.get(0), flush);
        }
    }

    /**
     * Records that attempt {@code attempt} at {@code m} failed and another follows; nothing once its
     * destination was deleted (a destination created again under its name starts afresh).
     */
    private void recordAttempt(Slot s, LeasedMessage m, int attempt) {
        if (!s.removed) {
            repository.failedAttempt(s.d.name(), m.partitionId(), m.offset(), attempt).stage(Dispatcher::db);
        }
    }

    /**
     * Dead-letters {@code m} for its destination after {@code attempts}, with its WARN; nothing once
     * the destination was deleted: its dead letters went with it, and a destination created again
     * under its name must not list (nor redrive) a message it was never sent.
     */
    private void deadLetter(Slot s, LeasedMessage m, int attempts, String error) {
        Destination d = s.d;
        if (s.removed) {
            LOG.debugf("destination %s: deleted while message %s was sent; not dead-lettered", d.name(), m.messageId());
            return;
        }
        repository.deadLetter(d.name(), m.partitionId(), m.offset(), m.messageId(), attempts, error).stage(Dispatcher::db);
        warnDeadLettered(d, m.messageId(), m.queue(), m.partition(), m.offset(), attempts, error);
    }

    /**
     * Waits for a database statement of delivery, up to {@link #DB_WAIT}, through an interrupt
     * ({@link #awaitThroughInterrupt}): the stop interrupts the workers to cut their attempts and
     * backoffs, not the pops, acks and releases that keep the group's bookkeeping true. Used as
     * {@code uni.stage(Dispatcher::db)}.
     */
    private static <T> T db(Uni<T> statement) {
        return awaitThroughInterrupt(statement, DB_WAIT);
    }

    /**
     * Waits up to {@code max} for {@code uni}'s item, as {@code uni.await().atMost(max)} does, except
     * that an interrupt (before or during the wait) does not end the wait: it goes on to the same
     * deadline, and the thread's interrupt flag is set again before this returns or throws. A
     * statement interrupted while awaited may have run in the database (a pop that took a lease)
     * with its answer dropped; waiting it out keeps that answer.
     *
     * @return the item
     * @throws io.smallrye.mutiny.TimeoutException when no item came within {@code max}
     * @throws RuntimeException the failure of {@code uni} (a checked one wrapped in a CompletionException)
     */
    static <T> T awaitThroughInterrupt(Uni<T> uni, Duration max) {
        java.util.concurrent.CompletableFuture<T> f = uni.subscribeAsCompletionStage();
        long end = System.nanoTime() + max.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true; // wait on
                } catch (java.util.concurrent.TimeoutException e) {
                    f.cancel(false);
                    throw new io.smallrye.mutiny.TimeoutException();
                } catch (java.util.concurrent.ExecutionException e) {
                    Throwable c = e.getCause();
                    if (c instanceof RuntimeException r) {
                        throw r;
                    }
                    if (c instanceof Error r) {
                        throw r;
                    }
                    throw new java.util.concurrent.CompletionException(c);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Writes what a batch settled; with {@code release}, also ends its lease ({@link #settleAndRelease}). */
    private void settle(boolean release, long holdMs, Slot s, Destination d, LeasedMessage first, Runnable flush) {
        if (release) {
            settleAndRelease(s, d, first, flush, holdMs);
        } else {
            flush.run();
        }
    }

    /**
     * At the stop, how long an unordered batch's lease is kept: the shortest of the backoffs the
     * stop cut off, or 0 (released now) when a message not settled was not waiting in one (its
     * attempt was cut off, or never began).
     */
    private static long stopHoldMs(Outcome[] outcomes, int[][] used) {
        long hold = Long.MAX_VALUE;
        for (int i = 0; i < outcomes.length; i++) {
            if (outcomes[i] == Outcome.DELIVERED || outcomes[i] == Outcome.DEAD) {
                continue;
            }
            hold = Math.min(hold, outcomes[i] == Outcome.ABORTED ? used[i][1] : 0);
        }
        return hold == Long.MAX_VALUE ? 0 : hold;
    }

    /**
     * Writes what a batch settled, then ends its lease (a worker stopped by a pause, a deletion, a
     * lost lease or the stop), so that its unsettled messages are leased again at once instead of
     * when the lease would have run out.
     */
    private void settleAndRelease(Slot s, Destination d, LeasedMessage m, Runnable flush, long holdMs) {
        try {
            flush.run();
        } finally {
            if (holdMs > 0) {
                holdUntilDue(s, m, holdMs);
            } else {
                release(s, d, m);
            }
        }
    }

    /**
     * At the stop, keeps a batch's lease until the backoff the stop cut off ends ({@code holdMs}
     * from now, rounded up to the second), rather than releasing it: the restart, or another
     * instance, sends the next attempt no sooner than this instance would have (a receiver's
     * Retry-After included). A lease that cannot be set so is released.
     */
    private void holdUntilDue(Slot s, LeasedMessage m, long holdMs) {
        int seconds = (int) Math.min(PopRequest.MAX_LEASE_SECONDS, (holdMs + 999) / 1000);
        try {
            ConsumeRepository.Extension e = consume.extend(m.leaseId(), seconds, true).stage(Dispatcher::db);
            if (e != null && e.extended()) {
                return;
            }
        } catch (RuntimeException e) {
            LOG.debugf("destination %s: cannot keep a lease on %s/%s for its backoff: %s", s.d.name(), m.queue(),
                    m.partition(), e.toString());
        }
        release(s, s.d, m);
    }

    /**
     * Runs {@code what} with this thread's interrupt flag cleared (the stop interrupts the workers,
     * and a wait for senders returns at once on an interrupted thread), then sets the flag again if
     * it was set.
     */
    private static void uninterrupted(Runnable what) {
        boolean interrupted = Thread.interrupted();
        try {
            what.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Ends a batch's lease now (a lease already lost is left as it is), counted in its destination's slot. */
    void release(Slot s, Destination d, LeasedMessage m) {
        releaseLease(s, m.leaseId(), m.queue() + "/" + m.partition());
    }

    /** Ends lease {@code leaseId} of the slot's destination now, counted in the slot; one it cannot end runs out. */
    private void releaseLease(Slot s, UUID leaseId, String what) {
        s.releases.incrementAndGet();
        endLease(leaseId, "destination " + s.d.name(), what);
    }

    /**
     * Ends lease {@code leaseId} now and forgets it ({@link #held}); one it cannot end runs out,
     * logged at DEBUG while delivery runs and at WARN at the stop ({@code who}: cannot release
     * {@code what}).
     */
    private void endLease(UUID leaseId, String who, String what) {
        try {
            consume.extend(leaseId, 0, true).stage(Dispatcher::db);
            held.remove(leaseId);
        } catch (RuntimeException e) {
            if (running) {
                LOG.debugf("%s: cannot release a lease on %s; it runs out: %s", who, what, e.toString());
            } else {
                LOG.warnf("%s: cannot release a lease on %s at the stop; it runs out: %s", who, what, e.toString());
            }
        }
    }

    /** The queues the configuration gives a destination. */
    private Set<String> configuredQueues() {
        Set<String> queues = new HashSet<>();
        configured.all().values().forEach(d -> queues.add(d.queue()));
        return queues;
    }

    /**
     * Delivers a leased batch of an unordered destination: each message is sent on a thread of
     * {@link #senders} at once (so at most the batch's size, exactly.delivery.batch, in flight per
     * batch), each retried on its own, so that a failing message holds back none of the others;
     * what is settled is acked before any backoff, and the rest once every message settled. Dead
     * letters stay per message. In invocation mode, messages whose next attempt would outlast the
     * drain park the partition at the first of them (a later drain resumes there and skips what was
     * settled meanwhile). A message cut off (a pause, a deletion, a lost lease, the stop) leaves the
     * rest of the batch to settle, then the lease is released; at the stop the worker waits up to
     * {@link #STOP_SETTLE_MS} for its interrupted senders first.
     */
    private void deliverAtOnce(Slot s, Destination d, List<LeasedMessage> batch, long leaseEndsAt, boolean leasedBefore) {
        Object lock = new Object();
        long[] leaseEnds = {leaseEndsAt};
        List<AckCommand> acks = new ArrayList<>();
        Tally tally = new Tally();
        tally.partitionId = batch.get(0).partitionId();
        Runnable flush = () -> {
            synchronized (lock) {
                flush(s, d, acks, tally);
            }
        };
        Map<Long, Integer> recorded = recordedAttempts(d, batch, leasedBefore);
        int n = batch.size();
        Outcome[] outcomes = new Outcome[n];
        int[][] used = new int[n][];
        // per message: 0 not started, 1 sending, 2 ended (or will never start)
        AtomicIntegerArray state = new AtomicIntegerArray(n);
        List<java.util.concurrent.Future<?>> running = new ArrayList<>(n);
        boolean release = false;
        try {
            for (int i = 0; i < n; i++) {
                int at = i;
                LeasedMessage m = batch.get(i);
                int first = firstAttempt(m, recorded);
                used[i] = new int[] {first, 0};
                Runnable body = () -> {
                    Sender.Outgoing out = new Sender.Outgoing(m.messageId().toString(), m.queue(), m.partition(),
                            m.offset(), m.transactionId(), m.contentType(), m.payload());
                    Keeper lease = needMs -> {
                        synchronized (lock) {
                            if (leaseEnds[0] >= 0) {
                                leaseEnds[0] = keepLease(m, leaseEnds[0], needMs);
                            }
                            return leaseEnds[0] >= 0;
                        }
                    };
                    Tally mine = new Tally();
                    Outcome o = attempts(s, out, first, lease,
                            a -> recordAttempt(s, m, a), () -> {
                        merge(lock, tally, mine);
                        flush.run();
                    }, mine, used[at]);
                    merge(lock, tally, mine);
                    if (o == Outcome.DEAD) {
                        deadLetter(s, m, used[at][0], mine.deadError);
                    }
                    if (o == Outcome.DELIVERED || o == Outcome.DEAD) {
                        synchronized (lock) {
                            acks.add(ack(d, m));
                            tally.recorded.add(m.offset());
                        }
                    }
                    outcomes[at] = o;
                };
                Runnable one = () -> {
                    if (!state.compareAndSet(at, 0, 1)) {
                        return; // the batch was given up before this message's turn
                    }
                    try {
                        body.run();
                    } finally {
                        state.set(at, 2);
                        synchronized (state) {
                            state.notifyAll();
                        }
                    }
                };
                running.add(senders.submit(one));
            }
            for (var f : running) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                }
            }
            for (Outcome o : outcomes) {
                // a message cut off (a pause, a deletion, a lost lease, the stop): unacked from here, and
                // released once the others settled, so that they are delivered again at once
                release |= o == Outcome.ABORTED;
            }
        } catch (InterruptedException e) {
            // the stop: the senders were interrupted too, what they settle meanwhile is written below
            release = true;
            running.forEach(f -> f.cancel(true));
            awaitEnded(state, STOP_SETTLE_MS);
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            running.forEach(f -> f.cancel(true));
            if (!this.running) {
                release = true; // cut off by the stop
                uninterrupted(() -> awaitEnded(state, STOP_SETTLE_MS));
            }
            throw e;
        } finally {
            settle(release, release && stopping ? stopHoldMs(outcomes, used) : 0, s, d, batch.get(0), flush);
        }
        if (release) {
            return;
        }
        // invocation mode: park at the first message left for a later drain, due when the first of them is
        int first = -1;
        long due = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (outcomes[i] == Outcome.PARKED) {
                first = first < 0 ? i : first;
                due = Math.min(due, used[i][1]);
            }
        }
        if (first >= 0) {
            LeasedMessage m = batch.get(first);
            Keeper lease = needMs -> {
                leaseEnds[0] = keepLease(m, leaseEnds[0], needMs);
                return leaseEnds[0] >= 0;
            };
            if (lease.keep(due + leaseSeconds(d) * 1000L)) {
                drains.park(d.name(), m.partitionId(), m.leaseId(), m.offset(), used[first][0], (int) due).stage(Dispatcher::db);
            }
        }
    }

    /**
     * Waits up to {@code ms} for the senders of a batch given up to end (those not started never
     * will: they are marked ended); returns early when interrupted.
     */
    private static void awaitEnded(AtomicIntegerArray state, long ms) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        synchronized (state) {
            for (int i = 0; i < state.length(); i++) {
                state.compareAndSet(i, 0, 2);
            }
            for (int i = 0; i < state.length(); i++) {
                while (state.get(i) != 2) {
                    long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
                    if (left <= 0) {
                        return;
                    }
                    try {
                        state.wait(left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
    }

    /**
     * The attempts recorded for a batch's messages (a read only when the batch was leased before:
     * a message is recorded only once an attempt at it was made under a lease).
     */
    private Map<Long, Integer> recordedAttempts(Destination d, List<LeasedMessage> batch, boolean leasedBefore) {
        if (!leasedBefore) {
            return Map.of();
        }
        LeasedMessage first = batch.get(0);
        return repository.attempts(d.name(), first.partitionId(), first.offset(), batch.get(batch.size() - 1).offset())
                .stage(Dispatcher::db);
    }

    /**
     * A message's next attempt: the one after those recorded for it (exactly.destination_attempts),
     * whatever the number of times it was leased (a lease may end before its messages were sent).
     */
    private static int firstAttempt(LeasedMessage m, Map<Long, Integer> recorded) {
        Integer made = recorded.get(m.offset());
        return made == null ? 1 : made + 1;
    }

    /** Adds a message's figures to its batch's, under the batch's lock. */
    private static void merge(Object lock, Tally into, Tally from) {
        synchronized (lock) {
            into.delivered += from.delivered;
            into.failed += from.failed;
            if (from.lastError != null && (into.lastErrorAt == null || !from.lastErrorAt.isBefore(into.lastErrorAt))) {
                into.lastError = from.lastError; // the latest of the batch's errors
                into.lastErrorAt = from.lastErrorAt;
            }
            if (from.deadError != null) {
                into.deadError = from.deadError; // the batch then takes the general ack
            }
        }
        from.delivered = 0;
        from.failed = 0;
    }

    /**
     * Sends the next redriven dead letter of a destination no instance holds; false when there is
     * none. Its attempts are recorded as they are made (exactly.destination_dead_letters
     * .redrive_attempts) and a redrive taken up again goes on from them, so that maxAttempts ends it
     * across drains and instances. Each failed attempt is added to the destination's figures
     * (failedAttempts, lastError) before the backoff that follows it. In invocation mode an attempt or a backoff that would outlast the
     * drain leaves it held until its next attempt is due, for a later drain.
     */
    private boolean redriveOne(Slot s) {
        Destination d = s.d;
        int seconds = leaseSeconds(d);
        DestinationRepository.Redrive r = repository.claimRedrive(d.name(), seconds).stage(Dispatcher::db);
        if (r == null) {
            return false;
        }
        if (r.message() == null) {
            String error = "its data was purged by the queue's retention: nothing left to send";
            repository.redriveFailed(d.name(), r.partitionId(), r.offset(), 0, error, r.requestedAt()).stage(Dispatcher::db);
            warnDeadLettered(d, r.messageId(), d.queue(), r.partition(), r.offset(), 0, error);
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
                repository.extendClaim(d.name(), r.partitionId(), r.offset(), ask).stage(Dispatcher::db);
                until[0] = now + ask * 1000L;
            }
            return true;
        };
        Tally tally = new Tally();
        // goes on after the attempts this redrive made before (a drain that left it, an instance that stopped)
        int first = r.attempts() + 1;
        int[] used = {first, 0};
        // a failed attempt's figures are written before its backoff, as a delivery's are: a GET of the
        // destination shows them while the redrive goes on (the last attempt's are written below)
        Outcome o = attempts(s, out, first, claim,
                a -> repository.redriveAttempt(d.name(), r.partitionId(), r.offset(), a).stage(Dispatcher::db),
                () -> flush(s, d, new ArrayList<>(), tally), tally, used);
        if (o == Outcome.PARKED) {
            // invocation mode: held until its next attempt is due, then any drain takes it up again
            repository.parkRedrive(d.name(), r.partitionId(), r.offset(), used[1]).stage(Dispatcher::db);
        }
        if (o == Outcome.ABORTED && !s.removed) {
            // a pause or a stop cut it off: the resume, or another instance, goes on with it at once
            try {
                // due now, or at the stop once the backoff it cut off ends
                repository.parkRedrive(d.name(), r.partitionId(), r.offset(), stopping ? used[1] : 0).stage(Dispatcher::db);
            } catch (RuntimeException e) {
                LOG.debugf("destination %s: a redrive's claim is left to run out: %s", d.name(), e.toString());
            }
        }
        if (o == Outcome.DELIVERED) {
            repository.redriven(d.name(), r.partitionId(), r.offset()).stage(Dispatcher::db);
        } else if (o == Outcome.DEAD) {
            repository.redriveFailed(d.name(), r.partitionId(), r.offset(), used[0], tally.deadError, r.requestedAt())
                    .stage(Dispatcher::db);
            warnDeadLettered(d, m.messageId(), d.queue(), m.partition(), r.offset(), used[0], tally.deadError);
        }
        if ((tally.delivered > 0 || tally.failed > 0) && !s.removed) {
            repository.addFigures(d.name(), tally.delivered, tally.failed, tally.lastError, tally.lastErrorAt).stage(Dispatcher::db);
        }
        return o != Outcome.ABORTED && o != Outcome.PARKED; // parked: a later drain sends its next attempt
    }

    /**
     * Writes the acks and figures gathered so far: one statement (both at once), or none when there
     * is nothing. Acks of messages all delivered, with no failed attempt since the last figures
     * written, take the lean ack by partition id and offsets, fused with the lean acks of the
     * destination's other workers that wait meanwhile ({@link #completedAcks},
     * {@link DestinationRepository#ackCompletedAll}); others the general one.
     */
    private void flush(Slot s, Destination d, List<AckCommand> acks, Tally tally) {
        if (s.removed) {
            // deleted (perhaps created again under its name): what this worker settled is not that destination's
            acks.clear();
            tally.clear();
            return;
        }
        if (!acks.isEmpty()) {
            if (tally.failed == 0 && tally.lastError == null && tally.deadError == null && oneLease(acks)) {
                DestinationRepository.CompletedAck completed = new DestinationRepository.CompletedAck(
                        tally.partitionId, acks.get(0).leaseId(), List.copyOf(tally.recorded), tally.delivered);
                throughOutage(d, () -> db(Uni.createFrom().completionStage(completedAcks(d).submit(completed))));
            } else {
                List<AckCommand> all = List.copyOf(acks);
                List<Long> recorded = List.copyOf(tally.recorded);
                throughOutage(d, () -> repository.ackAndCount(consume, all, d.name(), tally.delivered, tally.failed,
                        tally.lastError, tally.lastErrorAt, tally.partitionId, recorded).stage(Dispatcher::db));
            }
            acks.clear();
            tally.clear();
            return;
        }
        if (tally.delivered > 0 || tally.failed > 0) {
            repository.addFigures(d.name(), tally.delivered, tally.failed, tally.lastError, tally.lastErrorAt).stage(Dispatcher::db);
            tally.clearFigures();
        }
    }

    /**
     * Runs {@code acks}, a batch's acks, and runs them again while the database is unavailable (a
     * crash, a restart, a failover: {@link DatabaseErrors#isUnavailable}), every
     * {@link #OUTAGE_RETRY_MS}, for up to {@link #OUTAGE_MAX_MS}, while this dispatcher runs and (in a
     * drain) within the drain's deadline. A batch sent while the database was away is then acked
     * once it is back, under its lease, instead of holding its partition until the lease runs out
     * and being sent again. Repeating them is safe: an ack of what its lease acked already changes
     * nothing, and one under a lease that ended settles nothing (a run that committed but whose
     * answer was lost may count its figures twice).
     *
     * <p>Logged for an operator: one WARN at the first retry, then one INFO when the acks go through
     * (tries and milliseconds) or one WARN when the retries end without them (the batch is sent again
     * once its lease runs out); each try in between at DEBUG.
     *
     * @throws RuntimeException the last failure, when it is not an outage or the tries ran out
     */
    private void throughOutage(Destination d, Runnable acks) {
        long start = System.currentTimeMillis();
        long until = start + OUTAGE_MAX_MS;
        int tries = 0;
        while (true) {
            tries++;
            try {
                acks.run();
                if (tries > 1) {
                    LOG.infof("destination %s: a batch's acks written after %d tries in %d ms, once the database was back",
                            d.name(), tries, System.currentTimeMillis() - start);
                }
                return;
            } catch (RuntimeException e) {
                if (!DatabaseErrors.isUnavailable(e) || !running || outlasts(OUTAGE_RETRY_MS)
                        || System.currentTimeMillis() + OUTAGE_RETRY_MS > until) {
                    if (tries > 1) {
                        gaveUp(d, tries, start, e);
                    }
                    throw e;
                }
                if (tries == 1) {
                    LOG.warnf("destination %s: cannot write a batch's acks, the database is unavailable (%s); "
                            + "retrying for up to %d s", d.name(), e.toString(), OUTAGE_MAX_MS / 1000);
                } else {
                    LOG.debugf("destination %s: cannot ack now, trying again: %s", d.name(), e.toString());
                }
                try {
                    Thread.sleep(OUTAGE_RETRY_MS);
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                    gaveUp(d, tries, start, e);
                    throw e;
                }
            }
        }
    }

    /** The WARN that closes {@link #throughOutage}'s retries when the acks were not written. */
    private static void gaveUp(Destination d, int tries, long startMillis, RuntimeException last) {
        LOG.warnf("destination %s: a batch's acks not written after %d tries in %d ms (%s); the batch is sent again "
                + "once its lease runs out", d.name(), tries, System.currentTimeMillis() - startMillis, last.toString());
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
        ConsumeRepository.Extension e = consume.extend(m.leaseId(), ask, true).stage(Dispatcher::db);
        if (e == null || !e.extended()) {
            LOG.warnf("a destination lost its lease on %s/%s; another worker delivers from there", m.queue(), m.partition());
            return -1;
        }
        return now + ask * 1000L;
    }

    /**
     * The coalescer of a destination's lean acks: its workers' completed batches are acked one
     * statement at a time, those that come while one is in flight together in the next.
     */
    private AckCoalescer<DestinationRepository.CompletedAck, DestinationRepository.AckResult> completedAcks(Destination d) {
        return completedAcks.computeIfAbsent(d.name(), name -> {
            String group = d.group();
            return new AckCoalescer<>(all -> repository.ackCompletedAll(name, group, all), DB_WAIT);
        });
    }

    /** Whether the acks are all under the first one's lease (a batch's are). */
    private static boolean oneLease(List<AckCommand> acks) {
        UUID lease = acks.get(0).leaseId();
        for (AckCommand a : acks) {
            if (!lease.equals(a.leaseId())) {
                return false;
            }
        }
        return true;
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
     * minute) and readiness shows it; so is a batch the stop ended before its sends began.
     */
    private void stopped(Slot s, String what, RuntimeException e) {
        if (!running && e instanceof java.util.concurrent.RejectedExecutionException) {
            // a batch popped as the stop began: its senders' pool is shut, the batch released
            LOG.debugf("destination %s: %s ended by the stop: %s", s.d.name(), what, e.toString());
        } else if (e instanceof StoreUnavailableException || e instanceof StoreTimeoutException) {
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
