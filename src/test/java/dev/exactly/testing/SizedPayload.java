package dev.exactly.testing;

import java.util.Random;

/** JSON payloads of an exact size whose text varies with every byte, to check that bodies arrive whole and in order. */
public final class SizedPayload {

    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    private SizedPayload() {
    }

    /**
     * @param bytes the size in bytes, at least 8
     * @param seed  picks the letters (the same seed, the same text)
     * @return a JSON object {"s":"…"} of exactly {@code bytes} bytes (ASCII letters and digits in the string)
     */
    public static String of(long bytes, long seed) {
        int n = Math.toIntExact(bytes - "{\"s\":\"\"}".length());
        Random random = new Random(seed);
        StringBuilder b = new StringBuilder(n + 8).append("{\"s\":\"");
        for (int i = 0; i < n; i++) {
            b.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return b.append("\"}").toString();
    }
}
