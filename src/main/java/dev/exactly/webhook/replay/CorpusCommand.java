package dev.exactly.webhook.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code corpus}: writes a corpus of GitHub-shaped webhook deliveries for {@link ReplayCommand},
 * signed as GitHub signs them, into a directory: {@code github-deliveries.jsonl} (one delivery a
 * line: {@code headers} and the exact {@code body}, as replay reads it) and
 * {@code github-deliveries.expected.json} (the counts replay checks with {@code --expect}). The
 * deliveries are what a GitHub App or repository webhook sends (GitHub's documentation, "Webhook
 * events and payloads" and "Validating webhook deliveries"): the event in {@code X-GitHub-Event},
 * a delivery id in {@code X-GitHub-Delivery}, HMAC signatures of the exact body in
 * {@code X-Hub-Signature-256} ({@code sha256=} and hex) and {@code X-Hub-Signature} (SHA-1), and a
 * JSON body with the event's action, repository and sender. Mixed in, in arrival order:
 * <ul>
 * <li>redeliveries: an earlier delivery posted again, same id and same bytes (GitHub's
 *     "Redeliver", or a sender retrying after a timeout): each must be answered as a duplicate;</li>
 * <li>the same body under another delivery id (GitHub sends identical bodies for distinct events,
 *     e.g. each {@code ping}): new events, each stored;</li>
 * <li>tampered bodies: altered after signing, each refused with 401 and nothing written.</li>
 * </ul>
 * The same seed writes the same files. Runs without Quarkus:
 * {@code java -jar quarkus-run.jar corpus DIR}.
 */
@Command(name = "corpus", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Writes signed GitHub-shaped webhook deliveries (with redeliveries, repeated bodies and "
                + "tampered ones) and their expected counts, for the replay command.",
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:written", "2:bad arguments or the files could not be written"})
public final class CorpusCommand implements Callable<Integer> {

    /** The first program argument that selects this command. */
    public static final String NAME = "corpus";

    /** The deliveries file's name in the directory. */
    public static final String DELIVERIES = "github-deliveries.jsonl";

    /** The expected counts' file name in the directory. */
    public static final String EXPECTED = "github-deliveries.expected.json";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] EVENTS = {"push", "pull_request", "issues", "issue_comment", "release", "star"};
    private static final String[] LOGINS = {"octo-dev", "mona", "hubot", "ada-l", "grace-h", "linus-t", "margaret-h"};
    private static final String[] REPOS = {"billing", "web", "api-gateway", "mobile", "infra", "docs"};

    @Spec
    CommandSpec spec;

    @Option(names = "--secret", defaultValue = "exactly-corpus-secret", paramLabel = "SECRET",
            description = "The webhook secret the deliveries are signed with (default ${DEFAULT-VALUE}); "
                    + "the service's github source needs the same (GITHUB_WEBHOOK_SECRET)")
    String secret;

    @Option(names = "--events", defaultValue = "300", paramLabel = "N",
            description = "Distinct deliveries, each to be stored once (default ${DEFAULT-VALUE}), "
                    + "the repeated bodies among them")
    int events;

    @Option(names = "--redeliveries", defaultValue = "250", paramLabel = "N",
            description = "Earlier deliveries posted again (default ${DEFAULT-VALUE})")
    int redeliveries;

    @Option(names = "--same-body", defaultValue = "10", paramLabel = "N",
            description = "Of the distinct deliveries, how many repeat an earlier one's body under a new "
                    + "delivery id (default ${DEFAULT-VALUE})")
    int sameBody;

    @Option(names = "--tampered", defaultValue = "8", paramLabel = "N",
            description = "Deliveries whose body was altered after signing (default ${DEFAULT-VALUE})")
    int tampered;

    @Option(names = "--seed", defaultValue = "1", paramLabel = "SEED",
            description = "The same seed writes the same files (default ${DEFAULT-VALUE})")
    long seed;

    @Parameters(index = "0", paramLabel = "DIR", description = "Where to write " + DELIVERIES + " and " + EXPECTED)
    Path dir;

    /**
     * Runs the command on the given arguments with standard output and error.
     *
     * @param args the arguments after "corpus"
     * @return the exit code
     */
    public static int run(String... args) {
        return new CommandLine(new CorpusCommand()).execute(args);
    }

    /** One line of the corpus (a plain class: nothing of it is read or written by Jackson's binding). */
    private static final class Line {
        private final Map<String, String> headers;
        private final String body;
        private final boolean tampered;

        Line(Map<String, String> headers, String body, boolean tampered) {
            this.headers = headers;
            this.body = body;
            this.tampered = tampered;
        }

        Map<String, String> headers() {
            return headers;
        }

        String body() {
            return body;
        }

        boolean tampered() {
            return tampered;
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (events < 1 || redeliveries < 0 || tampered < 0 || sameBody < 0 || sameBody >= events || secret.isEmpty()) {
            err.println("corpus: --events must be at least 1 and above --same-body; --redeliveries, --same-body and "
                    + "--tampered at least 0; --secret not empty");
            return 2;
        }
        List<Line> lines = generate();
        try {
            Files.createDirectories(dir);
            StringBuilder jsonl = new StringBuilder();
            for (Line l : lines) {
                ObjectNode n = JSON.createObjectNode().put("source", "github");
                ObjectNode h = n.putObject("headers");
                l.headers().forEach(h::put);
                n.put("body", l.body());
                if (l.tampered()) {
                    n.put("tampered", true);
                }
                jsonl.append(JSON.writeValueAsString(n)).append('\n');
            }
            Files.writeString(dir.resolve(DELIVERIES), jsonl, StandardCharsets.UTF_8);
            ObjectNode expected = JSON.createObjectNode()
                    .put("distinct_deliveries", events)
                    .put("total_posts", lines.size())
                    .put("retries", redeliveries)
                    .put("tampered", tampered)
                    .put("same_body_other_id", sameBody);
            Files.writeString(dir.resolve(EXPECTED), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(expected)
                    + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            err.println("corpus: " + e.getMessage());
            return 2;
        }
        out.printf("wrote %d deliveries to %s (%d distinct, %d redelivered, %d repeating a body, %d tampered), "
                + "signed with the secret %s; expected counts in %s%n", lines.size(), dir.resolve(DELIVERIES), events,
                redeliveries, sameBody, tampered, secret, dir.resolve(EXPECTED));
        out.flush();
        return 0;
    }

    /**
     * The corpus in arrival order: each distinct delivery, then, at random later places, its
     * redeliveries; the tampered ones anywhere.
     */
    private List<Line> generate() {
        Random rnd = new Random(seed);
        List<Line> distinct = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            boolean repeat = i >= events - sameBody;
            String body;
            String event;
            if (repeat) {
                // an earlier delivery's exact bytes under a new delivery id
                Line earlier = distinct.get(rnd.nextInt(distinct.size()));
                body = earlier.body();
                event = earlier.headers().get("X-GitHub-Event");
            } else {
                event = i == 0 ? "ping" : EVENTS[rnd.nextInt(EVENTS.length)];
                body = body(event, i, rnd);
            }
            distinct.add(new Line(headers(event, new UUID(rnd.nextLong(), rnd.nextLong()).toString(), body, rnd), body,
                    false));
        }
        // the repeated bodies go to random places among the others, after their original
        List<Line> order = new ArrayList<>(distinct.subList(0, events - sameBody));
        for (Line l : distinct.subList(events - sameBody, events)) {
            int original = indexOfBody(order, l.body());
            order.add(original + 1 + rnd.nextInt(order.size() - original), l);
        }
        List<Line> all = new ArrayList<>(order);
        for (int i = 0; i < redeliveries; i++) {
            int original = rnd.nextInt(order.size());
            Line again = order.get(original);
            int at = all.indexOf(again) + 1;
            all.add(at + rnd.nextInt(all.size() - at + 1), again);
        }
        for (int i = 0; i < tampered; i++) {
            String event = EVENTS[rnd.nextInt(EVENTS.length)];
            String signed = body(event, events + i, rnd);
            String altered = signed.replaceFirst("\"action\":\"[a-z_]*\"", "\"action\":\"deleted\"");
            if (altered.equals(signed)) {
                altered = signed.substring(0, signed.length() - 1) + ",\"injected\":true}";
            }
            Line l = new Line(headers(event, new UUID(rnd.nextLong(), rnd.nextLong()).toString(), signed, rnd), altered,
                    true);
            all.add(rnd.nextInt(all.size() + 1), l);
        }
        return all;
    }

    private static int indexOfBody(List<Line> lines, String body) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).body().equals(body)) {
                return i;
            }
        }
        throw new IllegalStateException("no earlier delivery with this body");
    }

    /** GitHub's headers for a delivery, signed over {@code signedBody}. */
    private Map<String, String> headers(String event, String delivery, String signedBody, Random rnd) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Type", "application/json");
        h.put("User-Agent", "GitHub-Hookshot/" + HexFormat.of().toHexDigits(rnd.nextInt()).substring(1));
        h.put("X-GitHub-Event", event);
        h.put("X-GitHub-Delivery", delivery);
        h.put("X-GitHub-Hook-ID", Integer.toString(400_000 + rnd.nextInt(10)));
        h.put("X-GitHub-Hook-Installation-Target-ID", Integer.toString(70_000_000 + rnd.nextInt(1000)));
        h.put("X-GitHub-Hook-Installation-Target-Type", "repository");
        byte[] body = signedBody.getBytes(StandardCharsets.UTF_8);
        h.put("X-Hub-Signature", "sha1=" + hmac("HmacSHA1", body));
        h.put("X-Hub-Signature-256", "sha256=" + hmac("HmacSHA256", body));
        return h;
    }

    private String hmac(String algorithm, byte[] body) {
        try {
            Mac mac = Mac.getInstance(algorithm);
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), algorithm));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A compact JSON body of the event's shape: action (where the event has one), repository, sender, event fields. */
    private static String body(String event, int n, Random rnd) {
        ObjectNode b = JSON.createObjectNode();
        String login = LOGINS[rnd.nextInt(LOGINS.length)];
        String repo = REPOS[rnd.nextInt(REPOS.length)];
        String owner = "acme-" + (1 + rnd.nextInt(3));
        Instant at = Instant.parse("2026-03-01T08:00:00Z").plusSeconds(n * 97L + rnd.nextInt(90));
        switch (event) {
            case "ping" -> {
                b.put("zen", "Keep it logically awesome.");
                b.put("hook_id", 400_000);
                ObjectNode hook = b.putObject("hook");
                hook.put("type", "Repository").put("id", 400_000).put("name", "web").put("active", true);
                hook.putArray("events").add("*");
                hook.putObject("config").put("content_type", "json").put("insecure_ssl", "0")
                        .put("url", "https://hooks.example.com/webhooks/github");
            }
            case "push" -> {
                String before = sha(rnd);
                String after = sha(rnd);
                b.put("ref", "refs/heads/" + (rnd.nextBoolean() ? "main" : "feature-" + n)).put("before", before)
                        .put("after", after).put("created", false).put("deleted", false).put("forced", false);
                ArrayNode commits = b.putArray("commits");
                int k = 1 + rnd.nextInt(3);
                for (int i = 0; i < k; i++) {
                    ObjectNode c = commits.addObject();
                    c.put("id", i == k - 1 ? after : sha(rnd)).put("message", "Change " + n + "." + i)
                            .put("timestamp", at.toString()).put("distinct", true);
                    c.putObject("author").put("name", login).put("email", login + "@example.com");
                    c.putArray("added");
                    c.putArray("modified").add("src/file" + rnd.nextInt(50) + ".txt");
                    c.putArray("removed");
                }
                b.set("head_commit", commits.get(k - 1));
                b.putObject("pusher").put("name", login).put("email", login + "@example.com");
            }
            case "pull_request" -> {
                b.put("action", pick(rnd, "opened", "synchronize", "closed", "reopened", "edited"));
                int number = 1 + rnd.nextInt(400);
                b.put("number", number);
                ObjectNode pr = b.putObject("pull_request");
                pr.put("id", 900_000_000L + n).put("number", number).put("state", "open").put("title", "Change " + n)
                        .put("created_at", at.toString()).put("updated_at", at.plusSeconds(60).toString())
                        .put("draft", false).put("merged", false);
                pr.putObject("head").put("ref", "feature-" + n).put("sha", sha(rnd));
                pr.putObject("base").put("ref", "main").put("sha", sha(rnd));
                pr.set("user", user(login));
            }
            case "issues" -> {
                b.put("action", pick(rnd, "opened", "edited", "closed", "labeled", "assigned"));
                b.set("issue", issue(n, login, at, rnd));
            }
            case "issue_comment" -> {
                b.put("action", pick(rnd, "created", "edited"));
                b.set("issue", issue(n, login, at, rnd));
                ObjectNode c = b.putObject("comment");
                c.put("id", 1_700_000_000L + n).put("body", "Looks good (" + n + ")").put("created_at", at.toString());
                c.set("user", user(login));
            }
            case "release" -> {
                b.put("action", pick(rnd, "published", "created", "edited"));
                ObjectNode r = b.putObject("release");
                r.put("id", 17_000_000 + n).put("tag_name", "v1." + n + ".0").put("name", "1." + n)
                        .put("draft", false).put("prerelease", rnd.nextInt(5) == 0).put("published_at", at.toString());
                r.set("author", user(login));
            }
            default -> { // star
                b.put("action", pick(rnd, "created", "deleted"));
                b.put("starred_at", at.toString());
            }
        }
        ObjectNode repository = b.putObject("repository");
        repository.put("id", 186_000_000 + Math.floorMod((owner + "/" + repo).hashCode(), 1_000_000))
                .put("name", repo).put("full_name", owner + "/" + repo).put("private", true)
                .put("html_url", "https://github.com/" + owner + "/" + repo).put("default_branch", "main");
        repository.set("owner", user(owner));
        b.set("sender", user(login));
        try {
            return JSON.writeValueAsString(b);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ObjectNode issue(int n, String login, Instant at, Random rnd) {
        ObjectNode i = JSON.createObjectNode();
        i.put("id", 1_300_000_000L + n).put("number", 1 + rnd.nextInt(900)).put("title", "Issue " + n)
                .put("state", "open").put("created_at", at.toString()).put("comments", rnd.nextInt(8));
        i.set("user", user(login));
        return i;
    }

    private static ObjectNode user(String login) {
        ObjectNode u = JSON.createObjectNode();
        u.put("login", login).put("id", 21_000_000 + Math.floorMod(login.hashCode(), 1_000_000))
                .put("type", login.startsWith("acme") ? "Organization" : "User")
                .put("html_url", "https://github.com/" + login);
        return u;
    }

    private static String sha(Random rnd) {
        byte[] b = new byte[20];
        rnd.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private static String pick(Random rnd, String... values) {
        return values[rnd.nextInt(values.length)];
    }
}
