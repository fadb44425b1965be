package dev.exactly.engine;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import java.util.UUID;

/** Mints message ids: UUIDv7 (RFC 9562, section 5.7), time-ordered, minted on arrival. */
public final class MessageIds {

    private static final TimeBasedEpochGenerator GENERATOR = Generators.timeBasedEpochGenerator();

    private MessageIds() {
    }

    /** A new UUIDv7. Thread-safe. */
    public static UUID next() {
        return GENERATOR.generate();
    }
}
