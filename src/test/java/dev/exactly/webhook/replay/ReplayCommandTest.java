package dev.exactly.webhook.replay;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.exactly.webhook.Signing;
import dev.exactly.webhook.StoredRows;
import dev.exactly.webhook.WebhookClient;
import io.quarkus.test.junit.QuarkusTest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Runs the replay command in-process against the test application (loopback). */
@QuarkusTest
class ReplayCommandTest {

    private static final Path CORPUS = Path.of("..", "shared", "corpus");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One run: the command (for its counts), its exit code and what it printed. */
    private record Run(ReplayCommand command, int exit, String out, String err) {
    }

    private static Run replay(String... args) {
        ReplayCommand cmd = new ReplayCommand();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(cmd);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(cmd, exit, out.toString(), err.toString());
    }

    @Test
    void replaysTheCorpusWithTheExpectedCountsAndFailsWhenTheyDiffer() {
        Path file = CORPUS.resolve("github-deliveries.jsonl");
        Path expect = CORPUS.resolve("github-deliveries.expected.json");
        assumeTrue(Files.isRegularFile(file) && Files.isRegularFile(expect), "webhook corpus not found at " + CORPUS);
        String url = WebhookClient.url("github-replay").toString();

        Run first = replay("--url", url, "--expect", expect.toString(), "--progress", "LINES", file.toString());
        assertEquals(0, first.exit(), first.out() + first.err());
        ReplayCounts c = first.command().counts();
        assertEquals(565, c.delivered());
        assertEquals(283, c.stored());
        assertEquals(274, c.duplicates());
        assertEquals(8, c.rejected());
        assertEquals(8, c.rejectedByStatus().get(401));
        assertEquals(0, c.failed());
        assertTrue(first.out().contains("stored         283"), first.out());
        assertTrue(first.out().contains("as expected"), first.out());
        assertTrue(first.err().contains("replay: 565/565 posted"), first.err());
        assertEquals(283, StoredRows.inQueue("webhooks.github-replay").size());

        // the same file again: everything valid is now a duplicate, so the expectations fail
        Run again = replay("--url", url, "--expect", expect.toString(), "--progress", "NONE", file.toString());
        assertEquals(1, again.exit(), again.out());
        assertEquals(0, again.command().counts().stored());
        assertEquals(557, again.command().counts().duplicates());
        assertEquals(8, again.command().counts().rejected());
        assertTrue(again.out().contains("NOT AS EXPECTED: stored 0, expected 283 (distinct_deliveries)"), again.out());
        assertEquals(283, StoredRows.inQueue("webhooks.github-replay").size());
    }

    @Test
    void countsASmallRecordingWithoutTheCorpus(@TempDir Path dir) throws Exception {
        String id = UUID.randomUUID().toString();
        byte[] body = utf8("{\"zen\":\"Approachable is better than simple.\",\"id\":\"" + id + "\"}");
        String sig = Signing.github("gh-test-secret", body);
        Path file = dir.resolve("d.jsonl");
        Files.write(file, List.of(line(id, sig, body, false), "", line(id, sig, body, false),
                line(UUID.randomUUID().toString(), sig, utf8("{\"zen\":\"tampered\"}"), true)), StandardCharsets.UTF_8);
        Path expect = dir.resolve("e.json");
        Files.writeString(expect, "{\"total_posts\":3,\"distinct_deliveries\":1,\"retries\":1,\"tampered\":1}");

        Run run = replay("--url", WebhookClient.url("gh").toString(), "--expect", expect.toString(),
                "--progress", "BAR", file.toString());
        assertEquals(0, run.exit(), run.out() + run.err());
        assertTrue(run.err().contains("line 4: HTTP 401"), run.err());
        assertTrue(run.err().contains("\r[##############################] 3/3"), run.err());
    }

    @Test
    void badArgumentsAndFilesExit2(@TempDir Path dir) throws Exception {
        assertEquals(2, replay("--url", "http://127.0.0.1:1/webhooks/x").exit());
        assertEquals(2, replay("--url", "http://127.0.0.1:1/webhooks/x", dir.resolve("missing.jsonl").toString()).exit());
        Path bad = dir.resolve("bad.jsonl");
        Files.writeString(bad, "{\"headers\":{}}\n");
        Run run = replay("--url", "http://127.0.0.1:1/webhooks/x", bad.toString());
        assertEquals(2, run.exit());
        assertTrue(run.err().contains("line 1"), run.err());
    }

    private static String line(String id, String sig, byte[] body, boolean tampered) {
        ObjectNode n = JSON.createObjectNode();
        n.put("source", "github");
        ObjectNode h = n.putObject("headers");
        h.put("Content-Type", "application/json");
        h.put("X-GitHub-Event", "ping");
        h.put("X-GitHub-Delivery", id);
        h.put("X-Hub-Signature-256", sig);
        n.put("body", new String(body, StandardCharsets.UTF_8));
        if (tampered) {
            n.put("tampered", true);
        }
        return n.toString();
    }
}
