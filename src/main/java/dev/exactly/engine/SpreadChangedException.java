package dev.exactly.engine;

/**
 * The store refused a push routed with a spreadPartitions that is not its queue's (SQLSTATE EXS01
 * of exactly.push_segment, sql/R__push.sql); nothing of the push was written. The engine learns the
 * stored values and routes the request again; a caller sees it only when that keeps happening
 * (the option changed several times during one push) or inside a transaction (rolled back; run it again).
 */
public final class SpreadChangedException extends RuntimeException {

    /** @param cause the database error */
    public SpreadChangedException(Throwable cause) {
        super("a queue's spreadPartitions changed while the push was routed; nothing was written", cause);
    }
}
