package dev.exactly.engine;

import io.smallrye.mutiny.Uni;
import java.util.List;

/**
 * Gives every pushed item an exact deduplication verdict.
 *
 * <p>Layer 1 ({@link RequestGrouping}) settles duplicates inside the request; the cache proposes
 * a p_verified watermark per segment; the store (layer 3, the only authority) probes each
 * partition's window under its row lock and stores the non-duplicates, all segments of a
 * request in one round trip. Thread-safe; holds no per-request state.
 */
public final class PushEngine {

    private final PushStore store;
    private final DedupCache cache;

    /**
     * @param store the probe client of this instance
     * @param cache the warm cache, or {@link DedupCache#DISABLED} for a stateless instance
     */
    public PushEngine(PushStore store, DedupCache cache) {
        this.store = store;
        this.cache = cache;
    }

    /**
     * Pushes a request's items.
     *
     * @param commands validated items, in request order (may be empty)
     * @return one verdict per item, in request order
     */
    public Uni<List<PushVerdict>> push(List<PushCommand> commands) {
        if (commands.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        RequestGrouping grouping = RequestGrouping.of(commands);
        List<Segment> segments = grouping.segments();
        long[] verified = new long[segments.size()];
        for (int i = 0; i < verified.length; i++) {
            Segment s = segments.get(i);
            verified[i] = cache.verifiedWatermark(s.partition(), s.items());
        }
        return store.push(segments, verified).map(outcomes -> {
            PushVerdict[] verdicts = new PushVerdict[grouping.size()];
            for (int i = 0; i < segments.size(); i++) {
                Segment s = segments.get(i);
                SegmentOutcome o = outcomes.get(i);
                cache.committed(s.partition(), s.items(), o);
                List<PushItem> items = s.items();
                for (int j = 0; j < items.size(); j++) {
                    PushItem it = items.get(j);
                    verdicts[it.index()] = new PushVerdict(it.index(), s.partition().queue(), s.partition().partition(),
                            it.transactionId(), o.messageIds()[j],
                            o.duplicate()[j] ? PushStatus.DUPLICATE : PushStatus.QUEUED, o.offsets()[j]);
                }
            }
            return grouping.assemble(verdicts);
        });
    }
}
