package dev.exactly.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.Api;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README's "Try it" block, taken from the README as a user would copy it and run with /bin/sh (a
 * POSIX shell: dash on Debian) against the started service, with curl, sed and openssl. The block
 * reads the service's address from {@code URL} and the key from {@code .exactly/api-key} of the
 * folder it runs in, as after README's first command; the test gives it the test service's
 * address, a folder whose key file holds the test API key, and the Stripe signing secret of the
 * test profile. Each of the six answers must say what the README says it does.
 */
@QuarkusTest
class DocsTryItTest {

    /** The Stripe source's secret in the test profile (src/test/resources/META-INF/microprofile-config.properties). */
    private static final String STRIPE_SECRET = "whsec_stripe-test-secret";

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URL base;

    @TempDir
    Path folder;

    @Test
    void theBlockRunsAsWrittenAndEachBrokenLineIsCaught() throws Exception {
        String block = Markdown.read("README.md").block("Try it", "sh");
        assertTrue(block.contains("openssl") && block.contains("/api/v1/pop"), block);
        List<String> problems = run(block);
        assertEquals(List.of(), problems, "README's Try it block, run with /bin/sh:\n" + block);

        // the check can fail: a line broken as a careless edit would break it is caught
        List<UnaryOperator<String>> breaks = List.of(
                b -> b.replaceFirst("-H \"Authorization: Bearer \\$KEY\" ", ""),
                b -> b.replace("\"status\":\"completed\"", "\"status\":\"done\""),
                b -> b.replace("-hmac \"$SECRET\"", "-hmac \"not-the-secret\""),
                b -> b.replace("LEASE=$(echo \"$POP\" | sed", "LEASE=$(echo \"$POP\" | sed -n"));
        for (UnaryOperator<String> b : breaks) {
            String broken = b.apply(block);
            assertFalse(broken.equals(block), "the break applies to the block as written");
            assertFalse(run(broken).isEmpty(), "a broken block must fail the check:\n" + broken);
        }
    }

    /** Runs a block and returns what is wrong with its output (empty: as README promises). */
    private List<String> run(String block) throws Exception {
        Thread.sleep(1100); // ID=order-$(date +%s): each run its own second, so its own key
        Path dir = Files.createTempDirectory(folder, "run");
        Files.createDirectories(dir.resolve(".exactly"));
        Files.writeString(dir.resolve(".exactly/api-key"), Api.TEST_API_KEY + "\n");
        Path script = dir.resolve("try-it.sh");
        Files.writeString(script, block);
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-e", script.toString()).directory(dir.toFile());
        pb.environment().remove("KEY");
        pb.environment().put("URL", base.toString().replaceFirst("/$", ""));
        pb.environment().put("STRIPE_WEBHOOK_SECRET", STRIPE_SECRET);
        pb.redirectError(dir.resolve("stderr").toFile());
        pb.redirectOutput(dir.resolve("stdout").toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        List<String> problems = new ArrayList<>();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            problems.add("did not end within 60 s");
            return problems;
        }
        String out = Files.readString(dir.resolve("stdout"), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            problems.add("exit status " + p.exitValue() + "; stderr: " + Files.readString(dir.resolve("stderr")));
        }
        check(out, problems);
        return problems;
    }

    private static void check(String out, List<String> problems) {
        List<String> lines = out.lines().filter(l -> !l.isBlank()).toList();
        if (lines.size() != 6) {
            problems.add("six answers expected, got " + lines.size() + ":\n" + out);
            return;
        }
        JsonNode[] a = new JsonNode[6];
        for (int i = 0; i < 6; i++) {
            try {
                a[i] = JSON.readTree(lines.get(i));
            } catch (IOException e) {
                problems.add("answer " + (i + 1) + " is not JSON: " + lines.get(i));
                return;
            }
        }
        JsonNode first = a[0].path("results").path(0);
        JsonNode again = a[1].path("results").path(0);
        String id = first.path("messageId").asText("");
        expect(problems, "push: queued", first.path("status").asText(), "queued", lines.get(0));
        expect(problems, "push again: duplicate", again.path("status").asText(), "duplicate", lines.get(1));
        expect(problems, "push again: the original's id", again.path("messageId").asText(), id, lines.get(1));
        expect(problems, "push again: same payload", again.path("payloadMatches").asText(), "true", lines.get(1));
        JsonNode popped = a[2].path("messages");
        boolean found = false;
        for (JsonNode m : popped) {
            found |= m.path("messageId").asText().equals(id) && !m.path("leaseId").asText("").isEmpty();
        }
        if (!found) {
            problems.add("pop: the pushed message under a lease expected: " + lines.get(2));
        }
        expect(problems, "ack: acked", a[3].path("result").asText(), "acked", lines.get(3));
        expect(problems, "ack: the pushed message", a[3].path("messageId").asText(), id, lines.get(3));
        expect(problems, "ack: completed", a[3].path("outcome").asText(), "completed", lines.get(3));
        expect(problems, "webhook: queued", a[4].path("verdict").asText(), "queued", lines.get(4));
        expect(problems, "webhook again: duplicate", a[5].path("verdict").asText(), "duplicate", lines.get(5));
        expect(problems, "webhook again: the original's id", a[5].path("messageId").asText(),
                a[4].path("messageId").asText("-"), lines.get(5));
    }

    private static void expect(List<String> problems, String what, String actual, String expected, String line) {
        if (!expected.equals(actual)) {
            problems.add(what + ": expected " + expected + ", got " + actual + " in " + line);
        }
    }
}
