package dev.exactly.lambda.secrets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.common.MapBackedConfigSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.microprofile.config.spi.ConfigSource;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClientBuilder;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueResponse;

/**
 * Configuration values read from AWS Secrets Manager at start-up (Lambda shape only), so that no
 * secret sits in the function's environment: the environment names the secrets, this source
 * fetches their values once per process with GetSecretValue (AWS SDK for Java 2.x, its
 * URL-connection HTTP client, the function role's credentials from the environment) and serves
 * them as ordinary config keys, e.g. {@code quarkus.datasource.password} or
 * {@code exactly.webhooks.sources.github.secret}.
 *
 * <p>Inactive unless {@value #PROPERTIES} is set: a JSON object from config key to
 * {@code <secret name or ARN>[#<json member>]}. {@value #ENDPOINT} overrides the service endpoint
 * (tests serve GetSecretValue on loopback); the region is {@value #REGION}, else the
 * {@code AWS_REGION} that Lambda sets. Values are fetched during initialisation, before a
 * SnapStart snapshot, and the client is closed and its connections disconnected afterwards;
 * nothing is read per request. A secret
 * that cannot be read stops the start with an error naming the config key, the secret and the
 * service's answer.
 */
public class SecretsManagerConfigSourceFactory implements ConfigSourceFactory {

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
        String mapping = value(context, PROPERTIES);
        if (mapping == null) {
            return List.of();
        }
        return List.of(new MapBackedConfigSource("AWS Secrets Manager (" + PROPERTIES + ")", fetch(mapping, context), ORDINAL) {
        });
    }

    @Override
    public OptionalInt getPriority() {
        return OptionalInt.of(ORDINAL);
    }

    private static synchronized Map<String, String> fetch(String mapping, ConfigSourceContext context) {
        Map<String, String> done = FETCHED.get(mapping);
        if (done != null) {
            return done;
        }
        Map<String, SecretReference> wanted = parse(mapping);
        String region = value(context, REGION);
        if (region == null) {
            region = System.getenv("AWS_REGION");
        }
        if (region == null || region.isBlank()) {
            throw new IllegalStateException(PROPERTIES + " is set but no region is known: set AWS_REGION or " + REGION);
        }
        // every connection is disconnected afterwards, so that the JDK does not keep it alive for
        // a SnapStart snapshot to hold
        List<HttpURLConnection> opened = new CopyOnWriteArrayList<>();
        SecretsManagerClientBuilder builder = SecretsManagerClient.builder()
                .httpClient(UrlConnectionHttpClient.create(uri -> {
                    try {
                        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
                        opened.add(c);
                        return c;
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }))
                .credentialsProvider(EnvironmentVariableCredentialsProvider.create())
                .region(Region.of(region));
        String endpoint = value(context, ENDPOINT);
        if (endpoint != null) {
            builder.endpointOverride(URI.create(endpoint));
        }
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, GetSecretValueResponse> secrets = new HashMap<>();
        try (SecretsManagerClient client = builder.build()) {
            for (Map.Entry<String, SecretReference> e : wanted.entrySet()) {
                SecretReference ref = e.getValue();
                try {
                    GetSecretValueResponse secret = secrets.computeIfAbsent(ref.secretId(),
                            id -> client.getSecretValue(r -> r.secretId(id)));
                    values.put(e.getKey(), extract(secret, ref));
                } catch (RuntimeException failure) {
                    throw new IllegalStateException("cannot read " + e.getKey() + " from Secrets Manager secret '"
                            + ref.secretId() + "'" + (ref.field() == null ? "" : " (member " + ref.field() + ")")
                            + ": " + failure.getMessage(), failure);
                }
            }
        } finally {
            opened.forEach(HttpURLConnection::disconnect);
        }
        Map<String, String> result = Map.copyOf(values);
        FETCHED.put(mapping, result);
        return result;
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

    private static String extract(GetSecretValueResponse secret, SecretReference ref) {
        String text = secret.secretString();
        if (text == null) {
            throw new IllegalStateException("the secret has no string value (binary secrets are not supported)");
        }
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
