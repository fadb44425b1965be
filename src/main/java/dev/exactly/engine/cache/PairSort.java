package dev.exactly.engine.cache;

/**
 * Sorting and binary search over 128-bit keys stored as pairs of longs in one {@code long[]}
 * (pair i at [2i] = high, [2i+1] = low), ordered by (high, low) with signed comparison. Any total
 * order serves membership; this one is cheap. The sort is an introsort (quicksort, heapsort when
 * recursion gets deep, insertion sort for short runs): O(n log n) whatever the input, in place.
 */
final class PairSort {

    private static final int INSERTION = 16;

    private PairSort() {
    }

    /**
     * Sorts the first {@code n} pairs of {@code a} in place.
     *
     * @param a pairs
     * @param n number of pairs to sort
     */
    static void sort(long[] a, int n) {
        if (n < 2) {
            return;
        }
        int depth = 2 * (32 - Integer.numberOfLeadingZeros(n));
        introsort(a, 0, n - 1, depth);
    }

    /**
     * @return true when (hi, lo) is among the first {@code n} pairs of sorted {@code a}
     */
    static boolean search(long[] a, int n, long hi, long lo) {
        return search(a, 0, n, hi, lo);
    }

    /**
     * @return true when (hi, lo) is among pairs [from, to) of sorted {@code a}
     */
    static boolean search(long[] a, int from, int to, long hi, long lo) {
        int l = from;
        int h = to - 1;
        while (l <= h) {
            int m = (l + h) >>> 1;
            long mh = a[2 * m];
            int c = mh < hi ? -1 : mh > hi ? 1 : Long.compare(a[2 * m + 1], lo);
            if (c < 0) {
                l = m + 1;
            } else if (c > 0) {
                h = m - 1;
            } else {
                return true;
            }
        }
        return false;
    }

    /** @return true when the first n pairs are in order (for tests) */
    static boolean isSorted(long[] a, int n) {
        for (int i = 1; i < n; i++) {
            if (cmp(a, i - 1, i) > 0) {
                return false;
            }
        }
        return true;
    }

    private static void introsort(long[] a, int lo, int hi, int depth) {
        while (hi - lo + 1 > INSERTION) {
            if (depth-- == 0) {
                heapsort(a, lo, hi);
                return;
            }
            int p = partition(a, lo, hi);
            // recurse into the smaller side, loop on the larger (bounded stack)
            if (p - lo < hi - p) {
                introsort(a, lo, p - 1, depth);
                lo = p + 1;
            } else {
                introsort(a, p + 1, hi, depth);
                hi = p - 1;
            }
        }
        insertion(a, lo, hi);
    }

    private static int partition(long[] a, int lo, int hi) {
        int mid = (lo + hi) >>> 1;
        // median of three to hi
        if (cmp(a, mid, lo) < 0) {
            swap(a, mid, lo);
        }
        if (cmp(a, hi, lo) < 0) {
            swap(a, hi, lo);
        }
        if (cmp(a, mid, hi) < 0) {
            swap(a, mid, hi);
        }
        long ph = a[2 * hi];
        long pl = a[2 * hi + 1];
        int i = lo;
        for (int j = lo; j < hi; j++) {
            long jh = a[2 * j];
            if (jh < ph || (jh == ph && a[2 * j + 1] < pl)) {
                swap(a, i++, j);
            }
        }
        swap(a, i, hi);
        return i;
    }

    private static void insertion(long[] a, int lo, int hi) {
        for (int i = lo + 1; i <= hi; i++) {
            long h = a[2 * i];
            long l = a[2 * i + 1];
            int j = i - 1;
            while (j >= lo && (a[2 * j] > h || (a[2 * j] == h && a[2 * j + 1] > l))) {
                a[2 * j + 2] = a[2 * j];
                a[2 * j + 3] = a[2 * j + 1];
                j--;
            }
            a[2 * j + 2] = h;
            a[2 * j + 3] = l;
        }
    }

    private static void heapsort(long[] a, int lo, int hi) {
        int n = hi - lo + 1;
        for (int i = n / 2 - 1; i >= 0; i--) {
            siftDown(a, lo, i, n);
        }
        for (int end = n - 1; end > 0; end--) {
            swap(a, lo, lo + end);
            siftDown(a, lo, 0, end);
        }
    }

    private static void siftDown(long[] a, int base, int i, int n) {
        while (true) {
            int c = 2 * i + 1;
            if (c >= n) {
                return;
            }
            if (c + 1 < n && cmp(a, base + c + 1, base + c) > 0) {
                c++;
            }
            if (cmp(a, base + i, base + c) >= 0) {
                return;
            }
            swap(a, base + i, base + c);
            i = c;
        }
    }

    private static int cmp(long[] a, int i, int j) {
        long x = a[2 * i];
        long y = a[2 * j];
        if (x != y) {
            return x < y ? -1 : 1;
        }
        return Long.compare(a[2 * i + 1], a[2 * j + 1]);
    }

    private static void swap(long[] a, int i, int j) {
        long h = a[2 * i];
        long l = a[2 * i + 1];
        a[2 * i] = a[2 * j];
        a[2 * i + 1] = a[2 * j + 1];
        a[2 * j] = h;
        a[2 * j + 1] = l;
    }
}
