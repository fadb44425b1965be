package dev.exactly.destination;

import dev.exactly.naming.Names;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Base64;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * The rules of a destination's settings, the same for the configuration and the API. Each broken
 * rule is reported with the field it concerns (the API's JSON member name).
 */
public final class DestinationRules {

    /** Longest destination name: its consumer group, {@code destination:<name>}, stays a valid name. */
    public static final int MAX_NAME_LENGTH = 200;
    /** Longest attempt a destination may set, in milliseconds. */
    public static final int MAX_TIMEOUT_MS = 60_000;
    /** Most attempts a destination may set. */
    public static final int MAX_ATTEMPTS = 100;
    /** Longest backoff a destination may set, in milliseconds (one hour). */
    public static final int MAX_BACKOFF_MS = 3_600_000;
    /** Type: POST to a URL. */
    public static final String HTTP = "http";
    /** Type: SendMessage to an Amazon SQS queue (standard or FIFO). */
    public static final String SQS = "sqs";
    /** Type: PutEvents to an Amazon EventBridge event bus. */
    public static final String EVENTBRIDGE = "eventbridge";
    /** The event bus an eventbridge destination sends to when it names none. */
    public static final String DEFAULT_EVENT_BUS = "default";
    /** The events' Source when an eventbridge destination names none. */
    public static final String DEFAULT_SOURCE = "exactly";
    /** The events' DetailType when an eventbridge destination names none. */
    public static final String DEFAULT_DETAIL_TYPE = "exactly.message";

    // an SQS queue URL's last path segment: 1 to 80 characters, .fifo included (SQS CreateQueue's QueueName)
    private static final Pattern SQS_QUEUE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,75}(\\.fifo)?|[A-Za-z0-9_-]{76,80}");
    // PutEvents' EventBusName: a name or an event bus ARN (the API reference's pattern), 1 to 1600 characters
    private static final Pattern EVENT_BUS = Pattern.compile(
            "(arn:aws[\\w-]*:events:[a-z]{2}-[a-z]+-[\\w-]+:[0-9]{12}:event-bus/)?[/.\\-_A-Za-z0-9]+");
    // an AWS region code: us-east-1, eu-central-2, us-gov-west-1, cn-north-1
    private static final Pattern REGION = Pattern.compile("[a-z]{2}(-[a-z]+)+-[0-9]{1,2}");
    /** The prefix of a Standard Webhooks secret. */
    public static final String SECRET_PREFIX = "whsec_";

    private DestinationRules() {
    }

    /** Checks a destination's name. */
    public static void name(String name, BiConsumer<String, String> broken) {
        String why = Names.checkName(name);
        if (why != null) {
            broken.accept("name", why);
        } else if (name.length() > MAX_NAME_LENGTH) {
            broken.accept("name", "must be at most " + MAX_NAME_LENGTH + " characters");
        }
    }

    /** Checks the settings of an http destination ({@code queue} null: not checked here; {@code guard} null: no address check). */
    public static void check(String queue, String type, String url, String signingSecret, Integer timeoutMs,
                             Integer maxAttempts, Integer backoffMs, Integer backoffCapMs, AddressGuard guard,
                             BiConsumer<String, String> broken) {
        check(queue, type, url, signingSecret, timeoutMs, maxAttempts, backoffMs, backoffCapMs, null, guard, broken);
    }

    /**
     * Checks the settings of a destination of any type ({@code queue} null: not checked here;
     * {@code aws} null: no AWS setting given; {@code guard} null: no address check). A setting of
     * another type than the destination's is refused, naming the field.
     */
    public static void check(String queue, String type, String url, String signingSecret, Integer timeoutMs,
                             Integer maxAttempts, Integer backoffMs, Integer backoffCapMs, Destination.Aws aws,
                             AddressGuard guard, BiConsumer<String, String> broken) {
        if (queue != null) {
            String why = Names.checkName(queue);
            if (why != null) {
                broken.accept("queue", why);
            }
        }
        Destination.Aws a = aws == null ? new Destination.Aws(null, null, null, null, null, null) : aws;
        if (HTTP.equals(type)) {
            if (url == null) {
                broken.accept("url", "is required");
            } else {
                String why = url(url, guard);
                if (why != null) {
                    broken.accept("url", why);
                }
            }
            if (signingSecret != null) {
                String why = secret(signingSecret);
                if (why != null) {
                    broken.accept("signingSecret", why);
                }
            }
            only(a.queueUrl(), "queueUrl", "sqs", broken);
            only(a.eventBus(), "eventBus", "eventbridge", broken);
            only(a.source(), "eventSource", "eventbridge", broken);
            only(a.detailType(), "detailType", "eventbridge", broken);
            only(a.region(), "region", "sqs and eventbridge", broken);
            only(a.endpoint(), "endpoint", "sqs and eventbridge", broken);
        } else if (SQS.equals(type) || EVENTBRIDGE.equals(type)) {
            only(url, "url", "http", broken);
            only(signingSecret, "signingSecret", "http", broken);
            if (SQS.equals(type)) {
                if (a.queueUrl() == null) {
                    broken.accept("queueUrl", "is required for an sqs destination");
                } else {
                    String why = queueUrl(a.queueUrl(), guard);
                    if (why != null) {
                        broken.accept("queueUrl", why);
                    }
                }
                only(a.eventBus(), "eventBus", "eventbridge", broken);
                only(a.source(), "eventSource", "eventbridge", broken);
                only(a.detailType(), "detailType", "eventbridge", broken);
            } else {
                only(a.queueUrl(), "queueUrl", "sqs", broken);
                if (a.eventBus() != null && (a.eventBus().length() > 1600 || !EVENT_BUS.matcher(a.eventBus()).matches())) {
                    broken.accept("eventBus", "must be an event bus name ([/.-_A-Za-z0-9]) or an event bus ARN, at most 1600 characters");
                }
                if (a.source() != null) {
                    if (a.source().isEmpty() || a.source().length() > 256) {
                        broken.accept("eventSource", "must be 1 to 256 characters");
                    } else if (a.source().startsWith("aws.")) {
                        broken.accept("eventSource", "must not start with 'aws.' (EventBridge keeps those for AWS services)");
                    }
                }
                if (a.detailType() != null && (a.detailType().isEmpty() || a.detailType().length() > 128)) {
                    broken.accept("detailType", "must be 1 to 128 characters");
                }
            }
            if (a.region() != null && !REGION.matcher(a.region()).matches()) {
                broken.accept("region", "must be an AWS region code such as us-east-1");
            }
            if (a.endpoint() != null) {
                String why = endpoint(a.endpoint(), guard);
                if (why != null) {
                    broken.accept("endpoint", why);
                }
            }
        } else {
            broken.accept("type", "must be http, sqs or eventbridge");
        }
        range("timeoutMs", timeoutMs, 1, MAX_TIMEOUT_MS, broken);
        range("maxAttempts", maxAttempts, 1, MAX_ATTEMPTS, broken);
        range("backoffMs", backoffMs, 1, MAX_BACKOFF_MS, broken);
        range("backoffCapMs", backoffCapMs, 1, MAX_BACKOFF_MS, broken);
        if (backoffMs != null && backoffCapMs != null && backoffCapMs < backoffMs) {
            broken.accept("backoffCapMs", "must not be below backoffMs (" + backoffMs + ")");
        }
    }

    private static void only(Object value, String field, String types, BiConsumer<String, String> broken) {
        if (value != null) {
            broken.accept(field, "applies to " + types + " destinations only");
        }
    }

    /** @return null when {@code url} is an SQS queue URL a destination may have, else why not */
    static String queueUrl(String url, AddressGuard guard) {
        String why = awsUrl(url, guard);
        if (why != null) {
            return why;
        }
        URI u = URI.create(url);
        String path = u.getPath() == null ? "" : u.getPath();
        String last = path.substring(path.lastIndexOf('/') + 1);
        if (!SQS_QUEUE_NAME.matcher(last).matches()) {
            return "must end with the queue's name (1 to 80 characters of [A-Za-z0-9_-], .fifo last for a FIFO queue)";
        }
        return null;
    }

    /** @return null when {@code url} is a service endpoint a destination may have, else why not */
    static String endpoint(String url, AddressGuard guard) {
        String why = awsUrl(url, guard);
        if (why != null) {
            return why;
        }
        URI u = URI.create(url);
        if (u.getRawPath() != null && !u.getRawPath().isEmpty() && !u.getRawPath().equals("/")) {
            return "must be a scheme, host and port only (no path)";
        }
        return null;
    }

    /**
     * The checks an AWS service's URL shares (an SQS queue URL, a service endpoint): no user
     * information, a URL a destination may have ({@link #url}), and no query.
     *
     * @return why not, or null
     */
    private static String awsUrl(String url, AddressGuard guard) {
        String why = noUserInfo(url);
        why = why != null ? why : url(url, guard);
        if (why == null && URI.create(url).getRawQuery() != null) {
            why = "must not have a query";
        }
        return why;
    }

    /** @return why an AWS destination's URL may not carry user information (credentials come from the SDK's chain), or null */
    private static String noUserInfo(String url) {
        try {
            return new URI(url).getRawUserInfo() == null ? null
                    : "must not carry user information (AWS credentials come from the AWS SDK's default credentials provider chain)";
        } catch (URISyntaxException e) {
            return null; // reported by url()
        }
    }

    /** @return whether {@code queueUrl} names a FIFO queue (its name ends with .fifo) */
    public static boolean fifo(String queueUrl) {
        return queueUrl.endsWith(".fifo");
    }

    private static void range(String field, Integer value, int min, int max, BiConsumer<String, String> broken) {
        if (value != null && (value < min || value > max)) {
            broken.accept(field, "must be between " + min + " and " + max);
        }
    }

    /** A host of numbers only (decimal, octal or hex parts, as inet_aton reads them): an IPv4 address. */
    private static final Pattern NUMERIC_HOST =
            Pattern.compile("(?i)(0x[0-9a-f]*|[0-9]+)(\\.(0x[0-9a-f]*|[0-9]+))*\\.?");
    /** The one IPv4 form every client reads alike: four decimal octets, no leading zeros. */
    private static final Pattern DOTTED_QUAD =
            Pattern.compile("((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])");

    /** @return the host of a URI's raw authority (user information and port removed), or null */
    private static String hostOf(String authority) {
        if (authority == null) {
            return null;
        }
        String h = authority.substring(authority.lastIndexOf('@') + 1);
        int colon = h.lastIndexOf(':');
        return colon >= 0 && !h.startsWith("[") ? h.substring(0, colon) : h;
    }

    /**
     * @return the port written in a URI's raw authority (what follows the host's last colon, after
     *         an IPv6 literal's bracket), "" for a colon with no port, or null when there is none
     */
    private static String portOf(String authority) {
        if (authority == null) {
            return null;
        }
        String h = authority.substring(authority.lastIndexOf('@') + 1);
        int colon = h.lastIndexOf(':');
        return colon < 0 || colon < h.lastIndexOf(']') || (h.startsWith("[") && h.lastIndexOf(']') < 0) ? null
                : h.substring(colon + 1);
    }

    /**
     * Why a URL's authority names no host java.net.URI reads as one (an internationalized name, an
     * underscore): the host must be an ASCII host name or an IP literal; an internationalized name
     * is shown in its punycode form (RFC 3492, as java.net.IDN writes it).
     */
    private static String hostless(String authority) {
        String why = "must name a host: an ASCII host name (letters, digits, hyphens and dots; an internationalized "
                + "name in its punycode form, xn--…) or an IP literal";
        String host = authority == null ? null : hostOf(authority);
        if (host != null && !host.isEmpty() && !host.chars().allMatch(c -> c < 128)) {
            try {
                return why + ", here " + java.net.IDN.toASCII(host, java.net.IDN.ALLOW_UNASSIGNED);
            } catch (IllegalArgumentException e) {
                return why;
            }
        }
        return why;
    }

    /** @return null when {@code url} is an http(s) URL a destination may have, else why not */
    static String url(String url, AddressGuard guard) {
        URI u;
        try {
            u = new URI(url);
        } catch (URISyntaxException e) {
            return "is not a URL: " + e.getReason();
        }
        String scheme = u.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
            return "must be an http or https URL";
        }
        String numeric = u.getHost() != null ? u.getHost() : hostOf(u.getRawAuthority());
        if (numeric != null && NUMERIC_HOST.matcher(numeric).matches() && !DOTTED_QUAD.matcher(numeric).matches()) {
            return "must write an IPv4 address as four decimal numbers without leading zeros (e.g. 10.0.0.1): "
                    + "clients read forms such as 0177.0.0.1, 0x7f.1 or 127.1 as different addresses";
        }
        String port = portOf(u.getRawAuthority());
        if (port != null && !port.isEmpty() && !(port.matches("[0-9]{1,5}") && Integer.parseInt(port) >= 1
                && Integer.parseInt(port) <= 65535)) {
            return "must have a port from 1 to 65535, or none (80 for http, 443 for https)";
        }
        if (u.getHost() == null || u.getHost().isEmpty()) {
            return hostless(u.getRawAuthority());
        }
        if (u.getRawUserInfo() != null) {
            return "must not carry user information (put credentials in the URL's path or query, or sign with signingSecret)";
        }
        if (u.getRawFragment() != null) {
            return "must not have a fragment";
        }
        if (url.length() > 2048) {
            return "must be at most 2048 characters";
        }
        return guard == null ? null : guard.refusedLiteral(u.getHost());
    }

    /** @return null when {@code secret} is a Standard Webhooks secret, else why not (never quoting it) */
    static String secret(String secret) {
        if (!secret.startsWith(SECRET_PREFIX)) {
            return "must be a Standard Webhooks secret: whsec_ followed by the base64 key";
        }
        String encoded = secret.substring(SECRET_PREFIX.length());
        String canonical = "must be whsec_ followed by standard base64 (RFC 4648 section 4, alphabet A-Z a-z 0-9 + /) "
                + "with its = padding, as receivers' decoders require";
        byte[] key;
        try {
            key = Base64.getDecoder().decode(encoded);
        } catch (IllegalArgumentException e) {
            return canonical + ": the rest is not base64";
        }
        // Java's decoder takes a missing padding and stray low bits that others (Python's b64decode) refuse:
        // only the one encoding of the key is accepted
        if (!Base64.getEncoder().encodeToString(key).equals(encoded)) {
            return canonical + ": the rest is not in that form (missing = padding, or not the key's one encoding)";
        }
        if (key.length < 24 || key.length > 64) {
            return "must hold a key of 24 to 64 bytes (Standard Webhooks), this one has " + key.length;
        }
        return null;
    }

    /** @return the HMAC key of a Standard Webhooks secret (checked before) */
    static byte[] key(String secret) {
        return Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
    }
}
