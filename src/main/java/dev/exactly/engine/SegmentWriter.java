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
}
