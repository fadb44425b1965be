package dev.exactly.webhook.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code replay}: posts a JSONL file of recorded webhook deliveries (headers + exact body bytes)
 * to a running service, one after another in file order, like a sender that retries, and prints
 * delivered / stored / duplicates / rejected. With --expect it exits 1 when a count differs from
 * the expectations file. Runs without Quarkus: {@code java -jar quarkus-run.jar replay ...}.
 *
 * <p>Exit codes: 0 all posts answered and the counts as expected; 1 a count differs or some post
 * failed (no answer, 5xx); 2 bad arguments or an unreadable file.
 */
@Command(name = "replay", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Posts recorded webhook deliveries (JSONL: {\"headers\":{...},\"body\":\"...\"} per line) "
                + "to a running Exactly service and counts the verdicts.",
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:counts as expected", "1:a count differs from --expect, or a post failed",
                "2:bad arguments or unreadable files"})
public final class ReplayCommand implements Callable<Integer> {

    /** The first program argument that selects this command. */
    public static final String NAME = "replay";

    /** Headers the HTTP client sets itself (java.net.http refuses them). */
    private static final Set<String> RESTRICTED = Set.of("connection", "content-length", "expect", "host", "upgrade",
            "transfer-encoding");

    private static final int MAX_NOTES = 20;

    @Spec
    CommandSpec spec;

    @Option(names = "--url", required = true, paramLabel = "URL",
            description = "Where to post, e.g. http://127.0.0.1:8080/webhooks/github")
    URI url;

    @Option(names = "--expect", paramLabel = "FILE",
            description = "Expected counts (total_posts, distinct_deliveries, retries, tampered); "
                    + "exit 1 when they differ")
    Path expect;

    @Option(names = "--timeout-seconds", defaultValue = "30", paramLabel = "S",
            description = "Per-request timeout (default ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Option(names = "--progress", defaultValue = "AUTO", paramLabel = "MODE",
            description = "AUTO (a bar on a terminal, lines otherwise), BAR, LINES or NONE")
    Progress.Mode progressMode;

    @Parameters(index = "0", paramLabel = "DELIVERIES.jsonl", description = "The recorded deliveries")
    Path file;

    private ReplayCounts counts;

    /**
     * Runs the command on the given arguments with standard output and error.
     *
     * @param args the arguments after "replay"
     * @return the exit code
     */
    public static int run(String... args) {
        return new CommandLine(new ReplayCommand()).execute(args);
    }

    /** The counts of the last run, or null before it. */
    public ReplayCounts counts() {
        return counts;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<RecordedDelivery> deliveries;
        Expectations expectations = null;
        try {
            deliveries = DeliveryFile.read(file);
            if (expect != null) {
                expectations = Expectations.read(expect);
            }
        } catch (IOException e) {
            err.println("replay: " + e.getMessage());
            return 2;
        }
        counts = new ReplayCounts();
        Progress progress = new Progress(err, progressMode, deliveries.size());
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(timeoutSeconds)).build();
        int notes = 0;
        for (RecordedDelivery d : deliveries) {
            String note = post(client, d);
            if (note != null && notes++ < MAX_NOTES) {
                progress.note(note);
            }
            progress.update(counts);
        }
        progress.finish();
        if (notes > MAX_NOTES) {
            err.println("replay: " + (notes - MAX_NOTES) + " more rejections or failures not shown");
        }
        print(out, counts);
        if (expectations == null) {
            return counts.failed() == 0 ? 0 : 1;
        }
        List<String> mismatches = expectations.mismatches(counts);
        if (mismatches.isEmpty() && counts.failed() == 0) {
            out.println("as expected (" + expect + ")");
            return 0;
        }
        mismatches.forEach(m -> out.println("NOT AS EXPECTED: " + m));
        return 1;
    }

    /** Posts one delivery and records its outcome; returns a note for a rejection or failure, else null. */
    private String post(HttpClient client, RecordedDelivery d) {
        HttpRequest.Builder b = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(timeoutSeconds))
                .POST(HttpRequest.BodyPublishers.ofByteArray(d.body()));
        for (Map.Entry<String, String> h : d.headers().entrySet()) {
            if (!RESTRICTED.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                try {
                    b.header(h.getKey(), h.getValue());
                } catch (IllegalArgumentException e) {
                    // a header the HTTP client will not send (e.g. Date on some JDKs): leave it out
                }
            }
        }
        HttpResponse<String> r;
        try {
            r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            counts.record(0, null);
            return "line " + d.line() + ": no answer: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            counts.record(0, null);
            return "line " + d.line() + ": interrupted";
        }
        String verdict = r.headers().firstValue("Exactly-Verdict").orElse(null);
        counts.record(r.statusCode(), verdict);
        if (r.statusCode() >= 200 && r.statusCode() < 300 && verdict != null) {
            return null;
        }
        return "line " + d.line() + ": HTTP " + r.statusCode() + " " + detail(r.body());
    }

    /** The problem document's detail, or the start of the body. */
    private static String detail(String body) {
        try {
            JsonNode n = new ObjectMapper().readTree(body);
            if (n != null && n.hasNonNull("detail")) {
                return n.get("detail").asText();
            }
        } catch (IOException | RuntimeException ignored) {
            // not a problem document
        }
        return body.length() > 200 ? body.substring(0, 200) + "…" : body;
    }

    private static void print(PrintWriter out, ReplayCounts c) {
        out.printf("delivered   %6d%n", c.delivered());
        out.printf("stored      %6d%n", c.stored());
        out.printf("duplicates  %6d%n", c.duplicates());
        StringBuilder by = new StringBuilder();
        c.rejectedByStatus().forEach((s, n) -> by.append(by.length() == 0 ? "  (" : ", ").append("HTTP ").append(s)
                .append(": ").append(n));
        out.printf("rejected    %6d%s%n", c.rejected(), by.length() == 0 ? "" : by + ")");
        if (c.failed() > 0) {
            out.printf("failed      %6d%n", c.failed());
        }
        out.flush();
    }
}
