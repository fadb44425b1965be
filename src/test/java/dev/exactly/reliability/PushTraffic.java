package dev.exactly.reliability;

import dev.exactly.engine.PushCommand;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Random push requests with explicit transactionIds over a few queues and partitions, shared by
 * every push client of a run so that their ids overlap: each new id is sent by two requests in a
 * row (two clients racing for it), 30% of items re-send an id sent before (a retry, or a
 * producer's duplicate), some requests repeat an id inside themselves, and half the requests are
 * multi-partition bundles. Queue names are ASCII (the rule); ids are not all ASCII.
 */
final class PushTraffic {

    private final String[] queues;
    private final String[] partitions;
    private final AtomicLong[] counters;
    private final PushLedger ledger;

    /**
     * @param queues     queue names to push to
     * @param partitions partition names in each queue
     * @param ledger     where the clients record what they were told
     */
    PushTraffic(String[] queues, String[] partitions, PushLedger ledger) {
        this.queues = queues;
        this.partitions = partitions;
        this.ledger = ledger;
        this.counters = new AtomicLong[queues.length * partitions.length];
        for (int i = 0; i < counters.length; i++) {
            counters[i] = new AtomicLong();
        }
    }

    /** The ledger of this traffic. */
    PushLedger ledger() {
        return ledger;
    }

    /** The queues this traffic pushes to. */
    List<String> queues() {
        return List.of(queues);
    }

    /** A new request: 1 to 8 items. */
    List<PushCommand> next(Random rnd, String client) {
        int n = 1 + rnd.nextInt(8);
        boolean bundle = rnd.nextBoolean();
        int slot = rnd.nextInt(counters.length);
        List<PushCommand> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (bundle) {
                slot = rnd.nextInt(counters.length);
            }
            String q = queues[slot / partitions.length];
            String p = partitions[slot % partitions.length];
            String txn;
            if (i > 0 && rnd.nextInt(20) == 0) {
                txn = items.get(i - 1).transactionId();
                q = items.get(i - 1).queue();
                p = items.get(i - 1).partition();
            } else {
                long issued = counters[slot].get();
                long id = issued > 0 && rnd.nextInt(10) < 3 ? (long) (rnd.nextDouble() * (issued / 2))
                        : counters[slot].getAndIncrement() / 2;
                txn = (slot % 2 == 0 ? "t-" : "τ-") + id;
            }
            byte[] payload = ("{\"client\":\"" + client + "\",\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8);
            items.add(PushCommand.json(q, p, txn, payload, null));
        }
        return items;
    }

    /** Records, before sending, that these ids are being attempted. */
    void attempted(List<PushCommand> items) {
        for (PushCommand c : items) {
            ledger.attempted(new PushLedger.Key(c.queue(), c.partition(), c.transactionId()));
        }
    }
}
