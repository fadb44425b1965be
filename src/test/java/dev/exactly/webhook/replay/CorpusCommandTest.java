package dev.exactly.webhook.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.webhook.StoredRows;
import dev.exactly.webhook.WebhookClient;
import io.quarkus.test.junit.QuarkusTest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The README's replay demo from a fresh clone: {@code corpus} writes a signed corpus of
 * GitHub-shaped deliveries and its expected counts, and {@code replay} of it against a running
 * service (the test application; a github source with the corpus secret) answers exactly as
 * expected: every distinct delivery stored once, every redelivery a duplicate, every tampered body
 * refused with 401. The files are what they claim (redeliveries repeat an earlier line's id and
 * bytes; repeated bodies come under new ids; a seed writes the same files).
 */
@QuarkusTest
class CorpusCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static int run(Object command, StringWriter out, String... args) {
        CommandLine cl = new CommandLine(command);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        return cl.execute(args);
    }

    @Test
    void theGeneratedCorpusReplaysAsExpected(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter();
        assertEquals(0, run(new CorpusCommand(), out, dir.toString()), out.toString());
        Path deliveries = dir.resolve(CorpusCommand.DELIVERIES);
        Path expected = dir.resolve(CorpusCommand.EXPECTED);
        JsonNode e = JSON.readTree(expected.toFile());
        assertEquals(300, e.get("distinct_deliveries").asInt());
        assertEquals(250, e.get("retries").asInt());
        assertEquals(8, e.get("tampered").asInt());
        assertEquals(558, e.get("total_posts").asInt());

        // what the lines are
        List<String> lines = Files.readAllLines(deliveries);
        assertEquals(558, lines.size());
        Map<String, String> bodyById = new HashMap<>();
        Set<String> bodies = new HashSet<>();
        int redelivered = 0;
        int sameBody = 0;
        for (String l : lines) {
            JsonNode n = JSON.readTree(l);
            String id = n.at("/headers/X-GitHub-Delivery").asText();
            String body = n.get("body").asText();
            assertTrue(n.at("/headers/X-Hub-Signature-256").asText().startsWith("sha256="));
            if (n.path("tampered").asBoolean()) {
                continue;
            }
            String earlier = bodyById.putIfAbsent(id, body);
            if (earlier != null) {
                assertEquals(earlier, body, "a redelivery repeats its delivery's bytes");
                redelivered++;
            } else if (!bodies.add(body)) {
                sameBody++;
            }
        }
        assertEquals(250, redelivered);
        assertEquals(10, sameBody);

        // the demo: replay it against a service whose github source has the corpus secret
        StringWriter replayed = new StringWriter();
        ReplayCommand replay = new ReplayCommand();
        int exit = run(replay, replayed, "--url", WebhookClient.url("github-generated").toString(), "--expect",
                expected.toString(), "--progress", "NONE", deliveries.toString());
        assertEquals(0, exit, replayed.toString());
        assertEquals(300, replay.counts().stored());
        assertEquals(250, replay.counts().duplicates());
        assertEquals(8, replay.counts().rejectedByStatus().get(401));
        assertTrue(replayed.toString().contains("as expected"), replayed.toString());
        assertEquals(300, StoredRows.inQueue("webhooks.github-generated").size());
    }

    @Test
    void aSeedWritesTheSameFilesAndAnotherSeedOthers(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter();
        assertEquals(0, run(new CorpusCommand(), out, "--events", "20", "--redeliveries", "5", "--same-body", "2",
                "--tampered", "1", dir.resolve("a").toString()));
        assertEquals(0, run(new CorpusCommand(), out, "--events", "20", "--redeliveries", "5", "--same-body", "2",
                "--tampered", "1", dir.resolve("b").toString()));
        assertEquals(0, run(new CorpusCommand(), out, "--events", "20", "--redeliveries", "5", "--same-body", "2",
                "--tampered", "1", "--seed", "2", dir.resolve("c").toString()));
        byte[] a = Files.readAllBytes(dir.resolve("a").resolve(CorpusCommand.DELIVERIES));
        assertArrayEquals(a, Files.readAllBytes(dir.resolve("b").resolve(CorpusCommand.DELIVERIES)));
        assertNotEquals(new String(a), Files.readString(dir.resolve("c").resolve(CorpusCommand.DELIVERIES)));
        assertEquals(26, Files.readAllLines(dir.resolve("a").resolve(CorpusCommand.DELIVERIES)).size());
        assertEquals(2, run(new CorpusCommand(), out, "--events", "2", "--same-body", "2", dir.resolve("d").toString()));
    }
}
