package dev.exactly.reliability;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Thread-safe counters of a soak or fault run: operations, transient failures ridden out, faults, errors. */
final class SoakStats {

    private final Map<String, LongAdder> operations = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> transients = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> faults = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    private final AtomicLong errorCount = new AtomicLong();
    private final AtomicLong extraLost = new AtomicLong();
    private final AtomicLong extraDuplicated = new AtomicLong();
    private final ConcurrentLinkedQueue<String> auditLines = new ConcurrentLinkedQueue<>();

    /** One operation completed with an answer. */
    void operation(String name) {
        operations.computeIfAbsent(name, k -> new LongAdder()).increment();
    }

    /** A transient failure a client rode out by retrying (e.g. "503 unavailable", "connection lost"). */
    void transientFailure(String kind) {
        transients.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    /** A fault was injected. */
    void fault(String name) {
        faults.computeIfAbsent(name, k -> new LongAdder()).increment();
    }

    /** An unexpected answer (a 500, a wrong status, an inconsistent verdict): a bug. */
    void error(String what) {
        errorCount.incrementAndGet();
        if (errors.size() < 20) {
            errors.add(what);
        }
    }

    /** Adds an operation audit's findings (see {@link SoakOperation#audit}). */
    void audited(String line, long lost, long duplicated) {
        auditLines.add(line);
        extraLost.addAndGet(lost);
        extraDuplicated.addAndGet(duplicated);
    }

    long operations() {
        return operations.values().stream().mapToLong(LongAdder::sum).sum();
    }

    long faults() {
        return faults.values().stream().mapToLong(LongAdder::sum).sum();
    }

    long transients() {
        return transients.values().stream().mapToLong(LongAdder::sum).sum();
    }

    long errors() {
        return errorCount.get();
    }

    long extraLost() {
        return extraLost.get();
    }

    long extraDuplicated() {
        return extraDuplicated.get();
    }

    /** The first errors, for an assertion message. */
    String firstErrors() {
        return String.join("\n  ", errors);
    }

    /** A multi-line report. */
    String report() {
        return "operations " + operations() + " " + sorted(operations)
                + "\nfaults injected " + faults() + " " + sorted(faults)
                + "\ntransient failures ridden out " + transients() + " " + sorted(transients)
                + "\nerrors " + errors()
                + (auditLines.isEmpty() ? "" : "\n" + String.join("\n", auditLines));
    }

    private static Map<String, Long> sorted(Map<String, LongAdder> m) {
        Map<String, Long> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
