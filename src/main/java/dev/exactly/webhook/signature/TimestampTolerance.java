package dev.exactly.webhook.signature;

import java.time.Clock;

/**
 * How far a signed timestamp may be from now, as each provider's official library checks it:
 * some refuse only timestamps older than the tolerance (Stripe, Twitch, Paddle), others refuse
 * both too old and too new (Standard Webhooks, Slack, Linear). Immutable, thread-safe.
 */
public final class TimestampTolerance {

    /** Which side of now is refused beyond the tolerance. */
    public enum Direction {
        /** Only timestamps older than now - tolerance are refused. */
        PAST_ONLY,
        /** Timestamps older than now - tolerance and newer than now + tolerance are refused. */
        BOTH
    }

    private final long toleranceSeconds;
    private final Direction direction;
    private final Clock clock;

    /**
     * @param toleranceSeconds the tolerance, in seconds (positive)
     * @param direction        which side is refused
     * @param clock            the time source
     */
    public TimestampTolerance(long toleranceSeconds, Direction direction, Clock clock) {
        this.toleranceSeconds = toleranceSeconds;
        this.direction = direction;
        this.clock = clock;
    }

    /**
     * @param epochMillis the signed timestamp, in milliseconds since the Unix epoch
     * @param what        the header or field it came from, for the message
     * @throws StaleTimestamp when it is outside the tolerance
     */
    public void check(long epochMillis, String what) {
        long now = clock.millis();
        long tol = toleranceSeconds * 1000L;
        if (epochMillis < now - tol) {
            throw new StaleTimestamp(what + " is older than the tolerance of " + toleranceSeconds + " s");
        }
        if (direction == Direction.BOTH && epochMillis > now + tol) {
            throw new StaleTimestamp(what + " is further ahead than the tolerance of " + toleranceSeconds + " s");
        }
    }

    /**
     * @param seconds the timestamp as decimal Unix seconds
     * @param what    the header it came from
     * @throws StaleTimestamp when it is not an integer or outside the tolerance
     */
    public void checkSeconds(String seconds, String what) {
        long t;
        try {
            t = Long.parseLong(seconds.trim());
        } catch (NumberFormatException e) {
            throw new StaleTimestamp(what + " must be Unix seconds");
        }
        if (Math.abs(t) > Long.MAX_VALUE / 1000) {
            throw new StaleTimestamp(what + " is out of range");
        }
        check(t * 1000L, what);
    }

    /** The tolerance, in seconds. */
    public long seconds() {
        return toleranceSeconds;
    }
}
