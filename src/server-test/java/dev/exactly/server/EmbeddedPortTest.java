package dev.exactly.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A fixed embedded port ({@code exactly.embedded.port}) that another server already listens on is
 * refused before PostgreSQL starts, with a message naming the port and the setting, rather than a
 * start that goes on against whatever holds the port.
 */
class EmbeddedPortTest {

    @Test
    void aFixedPortAnotherServerHoldsIsRefusedBeforeAnythingStarts() throws Exception {
        Path dir = Path.of("target", "port-" + UUID.randomUUID(), "pgdata").toAbsolutePath();
        try (ServerSocket other = new ServerSocket()) {
            other.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = other.getLocalPort();
            EmbeddedDatabase.PortInUseException refused = assertTimeoutPreemptively(Duration.ofSeconds(60),
                    () -> assertThrows(EmbeddedDatabase.PortInUseException.class, () -> EmbeddedDatabase.start(dir, port)));
            assertTrue(refused.getMessage().contains("exactly.embedded.port " + port), refused.getMessage());
            assertFalse(Files.exists(dir.resolve("postmaster.pid")), "no PostgreSQL was started");
            assertFalse(Files.exists(dir.resolve("PG_VERSION")), "the data directory was not initialised");
        }
        // the directory's ownership was given back: a start on a free port now succeeds
        try (EmbeddedDatabase db = EmbeddedDatabase.start(dir, 0)) {
            assertTrue(db.isRunning());
        }
    }
}
