package dev.exactly.engine;

import dev.exactly.db.LaneCycleProbe;
import io.smallrye.mutiny.Uni;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * The unfused path to the store: asks the cache for each segment's {@link ProbeBound}, sends all
 * segments in one bundle (one round trip, one transaction), then tells the cache what was
 * committed. With {@link DedupCache#DISABLED} every segment probes the whole window.
 */
public final class DirectWriter implements SegmentWriter {

    private static final Logger LOG = Logger.getLogger(DirectWriter.class);

    private final PushRepository store;
    private final DedupCache cache;

    /**
     * @param store the probe client
     * @param cache the warm cache, or {@link DedupCache#DISABLED}
     */
    public DirectWriter(PushRepository store, DedupCache cache) {
        this.store = store;
        this.cache = cache;
    }

    @Override
    public Uni<List<SegmentOutcome>> write(List<Segment> segments) {
        return Uni.createFrom().deferred(() -> {
            Bounds b = bounds(segments);
            return store.push(segments, b.verified, b.windows).invoke(outcomes -> tellCache(segments, outcomes));
        });
    }

    /** Per segment, the watermark the cache vouches for and the window it was vouched under. */
    private record Bounds(long[] verified, int[] windows) {
    }

    private Bounds bounds(List<Segment> segments) {
        long[] verified = new long[segments.size()];
        int[] windows = new int[segments.size()];
        for (int i = 0; i < verified.length; i++) {
            Segment s = segments.get(i);
            ProbeBound b = cache.bound(s.partition(), s.items());
            verified[i] = b.verified();
            windows[i] = b.windowSeconds();
        }
        return new Bounds(verified, windows);
    }

    /**
     * As {@link #write}, completing when the store has settled the segments; the cache learns
     * them once they are durable, so that it never vouches for a row a crash could take back.
     */
    @Override
    public Uni<Settled> writeSettled(List<Segment> segments) {
        return Uni.createFrom().deferred(() -> {
            Bounds b = bounds(segments);
            if (LaneCycleProbe.ON) {
                LaneCycleProbe.mark(LaneCycleProbe.BOUND);
            }
            return store.pushSettled(segments, b.verified, b.windows).map(settled -> new Settled(settled.outcomes(),
                    settled.durable().invoke(() -> tellCache(segments, settled.outcomes()))));
        });
    }

    private void tellCache(List<Segment> segments, List<SegmentOutcome> outcomes) {
        for (int i = 0; i < segments.size(); i++) {
            Segment s = segments.get(i);
            try {
                cache.committed(s.partition(), s.items(), outcomes.get(i));
            } catch (RuntimeException e) {
                // the verdicts are decided and committed; a cache fault must not fail the push
                LOG.errorf(e, "dedup cache failed to record a commit to %s", s.partition());
            }
        }
    }

    /** @return the store this writer sends to */
    public PushRepository store() {
        return store;
    }

    /** @return the cache this writer asks */
    public DedupCache cache() {
        return cache;
    }
}
