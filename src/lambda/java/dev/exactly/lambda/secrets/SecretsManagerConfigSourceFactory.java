package dev.exactly.lambda.secrets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.common.MapBackedConfigSource;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Configuration values read from AWS Secrets Manager at start-up (Lambda shape only), so that no
 * secret sits in the function's environment: the environment names the secrets, this source
 * fetches their values once per process with GetSecretValue (AWS SDK for Java 2.x, its
 * URL-connection HTTP client, the function role's credentials from the environment) and serves
 * them as ordinary config keys, e.g. {@code quarkus.datasource.password} or
 * {@code exactly.webhooks.sources.github.secret}.
 *
 * <p>Inactive unless {@value #DOCUMENT} or {@value #PROPERTIES} is set:
 * <ul>
 * <li>{@value #DOCUMENT} (env EXACTLY_SECRETS_DOCUMENT, set by infra/terraform) names a secret
 *     whose string is a settings document: {@code {"properties": {config key: value},
 *     "secrets": {config key: "<secret name or ARN>[#<json member>]"}}}. Its properties are
 *     served as they are (plain settings: webhook sources, the request deadline, the ARNs of the
 *     database secrets), its secrets are fetched; other members are ignored. So the function's
 *     environment stays a fixed handful of variables however many settings there are (Lambda
 *     allows 4 KB of environment in all).</li>
 * <li>{@value #PROPERTIES}: a JSON object from config key to
 *     {@code <secret name or ARN>[#<json member>]}, fetched the same way.</li>
 * </ul>
 * {@value #ENDPOINT} overrides the service endpoint (tests serve the API on loopback); the region
 * is {@value #REGION}, else the {@code AWS_REGION} that Lambda sets. Values are fetched during
 * initialisation, before a SnapStart snapshot, and the client is closed and its connections
 * disconnected afterwards ({@link SecretsManagerAccess}); nothing is read per request. A secret
 * that cannot be read stops the start with an error naming the config key, the secret and the
 * service's answer. The database credentials are not read here but when a connection opens
 * ({@code dev.exactly.lambda.db.ProxyFriendlyPoolCreator}).
 */
public class SecretsManagerConfigSourceFactory implements ConfigSourceFactory {

    /** The config key (env EXACTLY_SECRETS_DOCUMENT) naming the settings document's secret. */
    public static final String DOCUMENT = "exactly.secrets.document";
    /** The config key (env EXACTLY_SECRETS_PROPERTIES) mapping config keys to secrets, as JSON. */
    public static final String PROPERTIES = "exactly.secrets.properties";
    /** The config key (env EXACTLY_SECRETS_ENDPOINT) overriding the Secrets Manager endpoint URL. */
    public static final String ENDPOINT = "exactly.secrets.endpoint";
    /** The config key (env EXACTLY_SECRETS_REGION) naming the region; default AWS_REGION. */
    public static final String REGION = "exactly.secrets.region";

    /** Above application.properties (250), below the environment (300) and system properties (400). */
    static final int ORDINAL = 270;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The fetched values by the mapping that asked for them: config is built more than once per process. */
    private static final Map<String, Map<String, String>> FETCHED = new HashMap<>();

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        String document = value(context, DOCUMENT);
        String mapping = value(context, PROPERTIES);
        if (document == null && mapping == null) {
            return List.of();
        }
        String name = "AWS Secrets Manager (" + (document != null ? DOCUMENT : PROPERTIES) + ")";
        return List.of(new MapBackedConfigSource(name, fetch(document, mapping, context), ORDINAL) {
        });
    }

    @Override
    public OptionalInt getPriority() {
        return OptionalInt.of(ORDINAL);
    }

    private static synchronized Map<String, String> fetch(String document, String mapping, ConfigSourceContext context) {
        String cacheKey = document + "\n" + mapping;
        Map<String, String> done = FETCHED.get(cacheKey);
        if (done != null) {
            return done;
        }
        SecretsManagerAccess access = SecretsManagerAccess.of(value(context, REGION), value(context, ENDPOINT));
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, SecretReference> wanted = new LinkedHashMap<>();
        if (document != null) {
            Document d = readDocument(access, document);
            values.putAll(d.properties());
            wanted.putAll(d.secrets());
        }
        if (mapping != null) {
            wanted.putAll(parse(mapping));
        }
        Map<String, String> secrets = new HashMap<>();
        for (Map.Entry<String, SecretReference> e : wanted.entrySet()) {
            SecretReference ref = e.getValue();
            try {
                String secret = secrets.computeIfAbsent(ref.secretId(), access::requiredString);
                values.put(e.getKey(), extract(secret, ref));
            } catch (RuntimeException failure) {
                throw new IllegalStateException("cannot read " + e.getKey() + " from Secrets Manager secret '"
                        + ref.secretId() + "'" + (ref.field() == null ? "" : " (member " + ref.field() + ")")
                        + ": " + failure.getMessage(), failure);
            }
        }
        Map<String, String> result = Map.copyOf(values);
        FETCHED.put(cacheKey, result);
        return result;
    }

    /** A settings document: plain properties and secret references. */
    record Document(Map<String, String> properties, Map<String, SecretReference> secrets) {
    }

    private static Document readDocument(SecretsManagerAccess access, String secretId) {
        String text;
        try {
            text = access.requiredString(secretId);
        } catch (RuntimeException failure) {
            throw new IllegalStateException("cannot read the settings document (" + DOCUMENT + ") from Secrets Manager secret '"
                    + secretId + "': " + failure.getMessage(), failure);
        }
        return parseDocument(text);
    }

    /**
     * @param text the settings document
     * @return its properties (string values; numbers and booleans as their JSON text) and secret references
     * @throws IllegalArgumentException when it is not such a document
     */
    static Document parseDocument(String text) {
        JsonNode tree;
        try {
            tree = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(DOCUMENT + ": the settings document is not JSON: " + e.getOriginalMessage());
        }
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException(DOCUMENT + ": the settings document must be a JSON object");
        }
        Map<String, String> properties = new LinkedHashMap<>();
        JsonNode props = tree.path("properties");
        if (!props.isMissingNode() && !props.isObject()) {
            throw new IllegalArgumentException(DOCUMENT + ": \"properties\" must be an object of config key to value");
        }
        props.fields().forEachRemaining(f -> {
            if (!f.getValue().isValueNode() || f.getValue().isNull()) {
                throw new IllegalArgumentException(DOCUMENT + ": the value of " + f.getKey() + " must be a string, number or boolean");
            }
            properties.put(f.getKey(), f.getValue().asText());
        });
        JsonNode secrets = tree.path("secrets");
        Map<String, SecretReference> refs = secrets.isMissingNode() ? Map.of() : parse(secrets.toString());
        return new Document(properties, refs);
    }

    /** @return config key to secret reference, in the given order */
    static Map<String, SecretReference> parse(String mapping) {
        JsonNode tree;
        try {
            tree = JSON.readTree(mapping);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(PROPERTIES + " must be a JSON object of config key to secret: "
                    + e.getOriginalMessage());
        }
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException(PROPERTIES + " must be a JSON object of config key to secret");
        }
        Map<String, SecretReference> out = new LinkedHashMap<>();
        tree.fields().forEachRemaining(f -> {
            if (!f.getValue().isTextual()) {
                throw new IllegalArgumentException(PROPERTIES + ": the secret of " + f.getKey() + " must be a string");
            }
            try {
                out.put(f.getKey(), SecretReference.parse(f.getValue().asText()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(PROPERTIES + ": " + f.getKey() + ": " + e.getMessage());
            }
        });
        return out;
    }

    private static String extract(String text, SecretReference ref) {
        if (ref.field() == null) {
            return text;
        }
        JsonNode member;
        try {
            member = JSON.readTree(text).get(ref.field());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the secret string is not a JSON object");
        }
        if (member == null || !member.isValueNode() || member.isNull()) {
            throw new IllegalStateException("the secret's JSON has no member '" + ref.field() + "'");
        }
        return member.asText();
    }

    private static String value(ConfigSourceContext context, String name) {
        ConfigValue v = context.getValue(name);
        return v == null || v.getValue() == null || v.getValue().isBlank() ? null : v.getValue();
    }
}
