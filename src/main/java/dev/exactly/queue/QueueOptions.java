package dev.exactly.queue;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** A full set of queue option values (every {@link QueueOption} present). Immutable. */
public final class QueueOptions {

    private final EnumMap<QueueOption, Integer> values;

    private QueueOptions(EnumMap<QueueOption, Integer> values) {
        this.values = values;
    }

    /** Every option at its default. */
    public static QueueOptions defaults() {
        EnumMap<QueueOption, Integer> m = new EnumMap<>(QueueOption.class);
        for (QueueOption o : QueueOption.values()) {
            m.put(o, o.defaultValue());
        }
        return new QueueOptions(m);
    }

    /** These options with the given ones replaced. */
    public QueueOptions with(Map<QueueOption, Integer> changes) {
        EnumMap<QueueOption, Integer> m = new EnumMap<>(values);
        m.putAll(changes);
        return new QueueOptions(m);
    }

    /** The value of one option. */
    public int get(QueueOption o) {
        return values.get(o);
    }

    /** Wire name to wire value (an Integer, or a name for a named option), in declaration order. */
    public Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        values.forEach((k, v) -> m.put(k.wire(), k.toWire(v)));
        return m;
    }
}
