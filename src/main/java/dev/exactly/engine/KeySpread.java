package dev.exactly.engine;

/**
 * Where a key goes in a queue that spreads its messages by key (the queue option
 * {@code spreadPartitions}, N ≥ 2): partition {@code spread-<i>}, where i is the high 64 bits of
 * the key's 16-byte transaction hash ({@link TransactionHash}: XXH3-128 of the transactionId's
 * UTF-8 bytes, the first eight bytes big-endian) read as an unsigned integer, modulo N.
 *
 * <p>The hash is the one deduplication already stores (XXH3, xxHash specification, as computed by
 * zero-allocation-hashing), so the route is the same on every instance and every version that can
 * read the stored hashes: the same key always lands in the same partition, and the partition's
 * probe stays the exact verdict. Stateless; thread-safe.
 */
public final class KeySpread {

    /** The most partitions a queue may spread over. */
    public static final int MAX_PARTITIONS = 1024;

    /** Prefix of a spread partition's name; the partition's number (0 to N - 1, no padding) follows. */
    public static final String PREFIX = "spread-";

    private static final String[] NAMES = new String[MAX_PARTITIONS];

    static {
        for (int i = 0; i < MAX_PARTITIONS; i++) {
            NAMES[i] = PREFIX + i;
        }
    }

    private KeySpread() {
    }

    /**
     * @param hash a 16-byte transaction hash ({@link TransactionHash#of})
     * @param n    the queue's spreadPartitions, 2 to {@link #MAX_PARTITIONS}
     * @return the key's partition number, 0 to n - 1
     * @throws IllegalArgumentException for n outside 1 to {@link #MAX_PARTITIONS}
     */
    public static int indexOf(byte[] hash, int n) {
        if (n < 1 || n > MAX_PARTITIONS) {
            throw new IllegalArgumentException("spreadPartitions must be 2 to " + MAX_PARTITIONS + ", not " + n);
        }
        long high = 0;
        for (int i = 0; i < 8; i++) {
            high = (high << 8) | (hash[i] & 0xffL);
        }
        return (int) Long.remainderUnsigned(high, n);
    }

    /**
     * @param index a partition number, 0 to {@link #MAX_PARTITIONS} - 1
     * @return its name, {@code spread-<index>}
     */
    public static String partitionName(int index) {
        return NAMES[index];
    }

    /**
     * @param name a partition name
     * @param n    a queue's spreadPartitions (0 when it does not spread)
     * @return true when {@code name} is one of the queue's spread partitions, {@code spread-0} to
     *         {@code spread-<n - 1>} (no leading zeros)
     */
    public static boolean isPartitionOf(String name, int n) {
        if (n < 1 || !name.startsWith(PREFIX) || name.length() > PREFIX.length() + 4) {
            return false;
        }
        int i;
        try {
            i = Integer.parseInt(name.substring(PREFIX.length()));
        } catch (NumberFormatException e) {
            return false;
        }
        return i >= 0 && i < n && i < MAX_PARTITIONS && NAMES[i].equals(name);
    }

    /**
     * @param hash a 16-byte transaction hash
     * @param n    the queue's spreadPartitions
     * @return the name of the key's partition
     */
    public static String partitionOf(byte[] hash, int n) {
        return NAMES[indexOf(hash, n)];
    }
}
