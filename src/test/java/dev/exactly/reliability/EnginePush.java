package dev.exactly.reliability;

import dev.exactly.db.DatabaseErrors;
import dev.exactly.db.StoreTimeoutException;
import dev.exactly.db.StoreUnavailableException;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.PushStatus;
import dev.exactly.engine.PushVerdict;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * Pushes through an engine instance of a fleet (no HTTP), retrying the same request on another
 * instance after a transient failure, until answered or {@code giveUpAt} (epoch ms).
 */
final class EnginePush implements SoakOperation {

    private final EngineInstances instances;
    private final PushTraffic traffic;
    private final long giveUpAt;

    EnginePush(EngineInstances instances, PushTraffic traffic, long giveUpAt) {
        this.instances = instances;
        this.traffic = traffic;
        this.giveUpAt = giveUpAt;
    }

    @Override
    public String name() {
        return "push-engine";
    }

    @Override
    public void run(Random rnd, SoakStats stats) throws Exception {
        List<PushCommand> items = traffic.next(rnd, "engine");
        traffic.attempted(items);
        while (true) {
            EngineInstance instance = instances.pick(rnd);
            try {
                List<PushVerdict> verdicts = instance.engine().push(items).await().atMost(Duration.ofSeconds(90));
                record(traffic.ledger(), items, verdicts);
                stats.operation(name());
                return;
            } catch (RuntimeException e) {
                String kind = transientKind(e, instance);
                if (kind == null) {
                    throw e;
                }
                stats.transientFailure(kind);
                if (System.currentTimeMillis() > giveUpAt) {
                    stats.error(name() + ": gave up after transient failures, the last: " + e);
                    return;
                }
                Thread.sleep(20 + rnd.nextInt(100));
            }
        }
    }

    /** Records every verdict of a push in the ledger. */
    static void record(PushLedger ledger, List<PushCommand> items, List<PushVerdict> verdicts) {
        if (verdicts.size() != items.size()) {
            throw new IllegalStateException(verdicts.size() + " verdicts for " + items.size() + " items");
        }
        for (PushVerdict v : verdicts) {
            ledger.answered(new PushLedger.Key(v.queue(), v.partition(), v.transactionId()), v.messageId(),
                    v.status() == PushStatus.QUEUED);
        }
    }

    /** The kind of a transient failure a client retries, or null for anything else (a bug). */
    static String transientKind(Throwable e, EngineInstance instance) {
        if (e instanceof StoreTimeoutException) {
            return "database timeout";
        }
        if (e instanceof StoreUnavailableException) {
            return "database unavailable";
        }
        if (instance != null && instance.isClosed()) {
            return "instance discarded";
        }
        if (DatabaseErrors.isConnectionLost(e) || DatabaseErrors.isUnavailable(e)) {
            return "connection lost";
        }
        return null;
    }
}
