package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.exactly.consume.LeasedMessage;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A lease released early makes only its own destination's worker pop again at once: the count of
 * releases a worker compares around its batch is its destination's, not the instance's (with one
 * count, a release by another destination's worker made a worker pop once more for nothing).
 */
class DispatcherReleasesTest {

    private static Destination destination(String name) {
        return new Destination(name, "orders", "http", URI.create("http://receiver.example/" + name), null, 1_000,
                3, 100, 1_000, false, null, true);
    }

    @Test
    void aReleaseCountsForItsOwnDestinationOnly() {
        Dispatcher dispatcher = Dispatcher.idle(); // no database: the release statement fails, and is only logged
        Destination a = destination("a");
        Destination b = destination("b");
        Dispatcher.Slot slotA = dispatcher.new Slot(a);
        Dispatcher.Slot slotB = dispatcher.new Slot(b);
        LeasedMessage m = new LeasedMessage(UUID.randomUUID(), "t-1", "orders", "Default", 1, 0, new byte[] {'1'}, null, 1,
                UUID.randomUUID(), OffsetDateTime.now().plusMinutes(1));

        dispatcher.release(slotA, a, m);
        dispatcher.release(slotA, a, m);

        assertEquals(2, slotA.releases.get());
        assertEquals(0, slotB.releases.get(), "another destination's release does not make b's worker pop again");
    }
}
