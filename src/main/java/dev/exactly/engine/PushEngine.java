package dev.exactly.engine;

import io.smallrye.mutiny.Uni;
import java.util.List;

/**
 * Gives every pushed item an exact deduplication verdict.
 *
 * <p>Layer 1 ({@link RequestGrouping}) settles duplicates inside the request; the segment writer
 * sends the leaders on: directly ({@link DirectWriter}: the cache proposes a p_verified watermark
 * per segment, the store probes each partition's window under its row lock and stores the
 * non-duplicates, all segments of a request in one round trip), or through the server's fusion
 * layer (layer 2, {@link dev.exactly.engine.fusion.FusingWriter}). The store (layer 3) is the
 * only authority. Thread-safe; holds no per-request state.
 */
public final class PushEngine {

    private final SegmentWriter writer;

    /**
     * An unfused engine.
     *
     * @param store the probe client of this instance
     * @param cache the warm cache, or {@link DedupCache#DISABLED} for a stateless instance
     */
    public PushEngine(PushStore store, DedupCache cache) {
        this(new DirectWriter(store, cache));
    }

    /** @param writer where leader segments go: {@link DirectWriter} or a fusing writer over one */
    public PushEngine(SegmentWriter writer) {
        this.writer = writer;
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
        return writer.write(segments).map(outcomes -> {
            PushVerdict[] verdicts = new PushVerdict[grouping.size()];
            for (int i = 0; i < segments.size(); i++) {
                Segment s = segments.get(i);
                SegmentOutcome o = outcomes.get(i);
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
