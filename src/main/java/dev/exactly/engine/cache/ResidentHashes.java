package dev.exactly.engine.cache;

/**
 * The hashes one partition keeps resident in the warm cache: a multiset of 16-byte transaction
 * hashes, each stamped with the time it was stored, that answers membership and drops what has
 * aged out of the deduplication window.
 *
 * <h2>Design</h2>
 * The cache ({@link WarmDedupCache}) owns the rules (when an entry may vouch, when it must be
 * rebuilt); this interface owns only the storage, so that the storage can be replaced and tested
 * on its own (contract: {@code ResidentHashesContract} in the tests). The one implementation today
 * is {@link SortedRuns}: immutable sorted runs in time order plus an arrival-order buffer.
 *
 * <p>What every implementation must guarantee, because the cache's soundness rests on it:
 * <ul>
 * <li><b>No false negative.</b> A hash added and not yet expired is found by {@link #contains} and
 * {@link #containsAny}. A false positive is allowed (it costs the caller a full probe, never a
 * wrong verdict), but the implementation in use has none.</li>
 * <li><b>Expiry keeps a superset.</b> {@link #expireBefore} may drop a hash only if it was stored
 * before the cutoff, and may keep any number of such hashes (coarse expiry is sound: a resident
 * hash only routes a segment to the full probe).</li>
 * <li><b>A hash held twice is held independently.</b> Adding a hash again keeps it known until its
 * youngest copy expires; no reference count is needed by the caller.</li>
 * <li><b>Honest accounting.</b> {@link #bytes} is the footprint the memory governor budgets with
 * (dominated by the real 16 bytes per hash), and 0 when nothing is held.</li>
 * </ul>
 *
 * <p>A hash is passed as two longs, high 64 bits then low 64 bits, of the big-endian form {@link
 * dev.exactly.engine.TransactionHash} produces ({@link #high}, {@link #low}). Times are in the
 * owner's clock (milliseconds, {@link Ticker}). Implementations are not thread-safe: the owner (a
 * partition entry of the cache) guards its instance with the entry's monitor.
 */
public interface ResidentHashes {

    /**
     * Adds a hash (arrival order).
     *
     * @param hi     high 64 bits of the 16-byte hash
     * @param lo     low 64 bits
     * @param offset the offset the hash was stored at (bookkeeping only)
     * @param time   when it was stored, in the owner's clock (milliseconds); expiry compares against it
     */
    void add(long hi, long lo, long offset, long time);

    /**
     * Adds a 16-byte hash.
     *
     * @param hash   16 bytes, big-endian (see {@link dev.exactly.engine.TransactionHash})
     * @param offset the offset it was stored at
     * @param time   when it was stored, in the owner's clock (milliseconds)
     */
    default void add(byte[] hash, long offset, long time) {
        add(high(hash), low(hash), offset, time);
    }

    /**
     * @param hi high 64 bits of the hash
     * @param lo low 64 bits
     * @return true when the hash is resident
     */
    boolean contains(long hi, long lo);

    /** @return true when the 16-byte hash is resident */
    default boolean contains(byte[] hash) {
        return contains(high(hash), low(hash));
    }

    /**
     * Batch membership: true when any of the probed hashes is resident, the answer {@link
     * #contains} gives for some one of them. Only the first {@code n} pairs are looked at.
     *
     * @param probed pairs (high, low) of the hashes to look up; neither reordered nor written
     * @param n      number of pairs in {@code probed} (0 finds nothing)
     */
    boolean containsAny(long[] probed, int n);

    /**
     * Drops hashes stored before the cutoff, keeping every hash stored at or after it (and possibly
     * some older ones).
     *
     * @param cutoff time in the owner's clock (milliseconds)
     * @return the number of hashes dropped
     */
    long expireBefore(long cutoff);

    /**
     * Moves every hash of {@code later} into this set, behind this set's hashes in time order, and
     * leaves {@code later} empty. Used to splice a delta hydration in.
     *
     * @param later hashes stored after every hash of this set, made by the same factory as this set
     * @throws IllegalArgumentException when {@code later} is another implementation
     */
    void append(ResidentHashes later);

    /** @return resident hashes (a hash held twice counts twice) */
    long hashes();

    /** @return accounted footprint in bytes, 0 when empty */
    long bytes();

    /** High 64 bits of a 16-byte big-endian hash. */
    static long high(byte[] hash) {
        return longAt(hash, 0);
    }

    /** Low 64 bits of a 16-byte big-endian hash. */
    static long low(byte[] hash) {
        return longAt(hash, 8);
    }

    private static long longAt(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[at + i] & 0xffL);
        }
        return v;
    }
}
