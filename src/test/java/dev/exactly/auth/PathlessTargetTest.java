package dev.exactly.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.exactly.testing.LogCapture;
import dev.exactly.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * A request target with no path (only a query: {@code GET ?x}) is refused like any other target
 * the server cannot route: a bare 400, and nothing logged.
 */
@QuarkusTest
class PathlessTargetTest {

    @Test
    void aTargetWithoutAPathIsABare400AndNotLogged() throws Exception {
        List<String> logged;
        List<RawHttp.Answer> answers = new ArrayList<>();
        try (LogCapture logs = LogCapture.open()) {
            for (String target : List.of("?x", "?", "?x=1&y=2")) {
                for (String method : List.of("GET", "POST")) {
                    answers.add(RawHttp.send(RouteSpellingsTest.port(), method, target, Map.of(), null));
                }
            }
            logged = logs.records().stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                    .map(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getFormattedMessage()).toList();
        }
        for (RawHttp.Answer a : answers) {
            assertEquals(400, a.status(), a.body());
            assertEquals("", a.body());
            assertNull(a.header("content-type"), a.headers().toString());
        }
        assertEquals(List.of(), logged);
    }
}
