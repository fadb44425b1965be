package dev.exactly.testing;

/**
 * The send time a benchmark's push carries in its payload as {@code "t": <System.nanoTime()>}, read
 * back from the delivered body (a JSON text, or a jsonb payload's text, which puts a space after the
 * colon), so that push-to-delivery latency is measured on one JVM's clock.
 */
public final class PayloadClock {

    private PayloadClock() {
    }

    /**
     * @param body the delivered payload's text
     * @return the first {@code "t"} member's integer value, or {@code Long.MIN_VALUE} when there is none
     */
    public static long sentAt(String body) {
        int at = body.indexOf("\"t\":");
        if (at < 0) {
            return Long.MIN_VALUE;
        }
        int i = at + 4;
        while (i < body.length() && body.charAt(i) == ' ') {
            i++;
        }
        int j = i;
        while (j < body.length() && (Character.isDigit(body.charAt(j)) || body.charAt(j) == '-')) {
            j++;
        }
        try {
            return Long.parseLong(body.substring(i, j));
        } catch (NumberFormatException e) {
            return Long.MIN_VALUE;
        }
    }
}
