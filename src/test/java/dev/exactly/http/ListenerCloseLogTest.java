package dev.exactly.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.exactly.testing.LogCapture;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.logging.Filter;
import java.util.logging.Level;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

/**
 * What the console shows of Netty's acceptor at a stop: its "Failed to register an accepted
 * channel" (a connection accepted as the listener closes, closed unread) is lowered to DEBUG and so
 * not shown; its other warnings, and that message from any other logger, still show as WARN.
 */
@QuarkusTest
class ListenerCloseLogTest {

    @Test
    void onlyTheAcceptedChannelOfAClosingListenerIsLowered() {
        Filter console = LogCapture.consoleHandler().getFilter();
        assertNotNull(console, "the console has its filters");
        InternalLogger acceptor = InternalLoggerFactory.getInstance(ServerBootstrap.class);
        InternalLogger other = InternalLoggerFactory.getInstance("io.netty.channel.AbstractChannel");
        try (LogCapture capture = LogCapture.open()) {
            // as ServerBootstrap's acceptor logs it when the child group has no event loop left
            acceptor.warn("Failed to register an accepted channel: {}", "[id: 0x0c4f, L:/127.0.0.1:8080 - R:/127.0.0.1:40312]",
                    new IllegalStateException());
            acceptor.warn("Unknown channel option 'SO_EXAMPLE' for channel '[id: 0x0c4f]'");
            other.warn("Failed to register an accepted channel: {}", "[id: 0x0c50]", new IllegalStateException());
            List<ExtLogRecord> shown = capture.records().stream()
                    .filter(r -> r.getLoggerName().startsWith("io.netty.")).filter(console::isLoggable).toList();
            assertEquals(List.of("io.netty.bootstrap.ServerBootstrap: Unknown channel option",
                            "io.netty.channel.AbstractChannel: Failed to register an accepted channel"),
                    shown.stream().map(r -> r.getLoggerName() + ": " + r.getFormattedMessage().replaceAll(":? ['\\[].*", "")).toList());
            shown.forEach(r -> assertEquals(Level.WARNING.intValue(), r.getLevel().intValue(), r.getFormattedMessage()));
        }
    }
}
