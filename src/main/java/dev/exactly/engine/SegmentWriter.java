package dev.exactly.engine;

import io.smallrye.mutiny.Uni;
import java.util.List;

/**
 * Sends leader segments to the store (layer 3) and returns the store's outcome for each. The
 * direct implementation ({@link DirectWriter}) sends one bundle per call; the server's fusing
 * implementation ({@link dev.exactly.engine.fusion.FusingWriter}) fuses concurrent calls per
 * partition first.
 */
public interface SegmentWriter {

    /**
     * @param segments leader segments of one request, each for a distinct partition (not empty)
     * @return one outcome per segment, in segment order, each with one entry per segment item
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    Uni<List<SegmentOutcome>> write(List<Segment> segments);

    /**
     * As {@link #write}, but completes once the store has settled the segments, before their
     * answer may be given: the partitions' row locks are free then, and the answer waits for
     * {@link Settled#durable()} (sql/R__push.sql, "Commit before the WAL flush"). The default
     * completes after {@link #write}, durable at once.
     *
     * @param segments leader segments of one request, each for a distinct partition (not empty)
     * @return the settled outcomes and when they may be answered
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    default Uni<Settled> writeSettled(List<Segment> segments) {
        return write(segments).map(outcomes -> new Settled(outcomes, Uni.createFrom().voidItem()));
    }

    /**
     * Outcomes the store has committed, and what an answer with them must wait for.
     *
     * @param outcomes one per segment, in segment order
     * @param durable  completes when the outcomes are durable (a WAL flush, or nothing): subscribe
     *                 once; its failure leaves the outcome unknown to the caller
     */
    record Settled(List<SegmentOutcome> outcomes, Uni<Void> durable) {
    }
}
