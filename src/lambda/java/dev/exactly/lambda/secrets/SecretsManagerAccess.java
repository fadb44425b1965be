package dev.exactly.lambda.secrets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClientBuilder;
import software.amazon.awssdk.services.secretsmanager.model.ResourceNotFoundException;

/**
 * Calls to AWS Secrets Manager (AWS SDK for Java 2.x with its URL-connection HTTP client, the
 * function role's credentials from the environment Lambda sets). Each call builds a client,
 * uses it and closes it, disconnecting every HTTP connection it opened: nothing stays open between
 * calls, so a SnapStart snapshot holds no Secrets Manager socket and a frozen instance keeps none.
 *
 * @param region   the region (Lambda's AWS_REGION unless configured)
 * @param endpoint an endpoint URL that replaces the service's (tests serve the API on loopback), or null
 */
public record SecretsManagerAccess(String region, String endpoint) {

    /**
     * @param region   the configured region, or null for AWS_REGION
     * @param endpoint the configured endpoint override, or null
     * @return the access
     * @throws IllegalStateException when no region is known
     */
    public static SecretsManagerAccess of(String region, String endpoint) {
        String r = region == null || region.isBlank() ? System.getenv("AWS_REGION") : region;
        if (r == null || r.isBlank()) {
            throw new IllegalStateException("Secrets Manager is configured but no region is known: set AWS_REGION or "
                    + SecretsManagerConfigSourceFactory.REGION);
        }
        return new SecretsManagerAccess(r, endpoint == null || endpoint.isBlank() ? null : endpoint);
    }

    /**
     * Runs work with a client that is closed, and its connections disconnected, afterwards.
     *
     * @param work what to do with the client
     * @param <T>  its result
     * @return what work returned
     */
    public <T> T call(Function<SecretsManagerClient, T> work) {
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
        if (endpoint != null) {
            builder.endpointOverride(URI.create(endpoint));
        }
        try (SecretsManagerClient client = builder.build()) {
            return work.apply(client);
        } finally {
            opened.forEach(HttpURLConnection::disconnect);
        }
    }

    /**
     * The current string value of a secret.
     *
     * @param secretId its name or ARN
     * @return the SecretString of its AWSCURRENT version; empty when the secret has no value yet
     *         (Secrets Manager answers ResourceNotFoundException for a secret without a version)
     * @throws RuntimeException when the secret cannot be read (denied, unreachable, binary)
     */
    public Optional<String> currentString(String secretId) {
        return call(client -> {
            try {
                String text = client.getSecretValue(r -> r.secretId(secretId)).secretString();
                if (text == null) {
                    throw new IllegalStateException("the secret has no string value (binary secrets are not supported)");
                }
                return Optional.of(text);
            } catch (ResourceNotFoundException e) {
                return Optional.empty();
            }
        });
    }

    /**
     * The current string value of a secret that must have one.
     *
     * @param secretId its name or ARN
     * @return the SecretString of its AWSCURRENT version
     * @throws RuntimeException when it cannot be read, with Secrets Manager's answer (e.g.
     *                          ResourceNotFoundException: "Secrets Manager can't find the specified secret")
     */
    public String requiredString(String secretId) {
        return call(client -> {
            String text = client.getSecretValue(r -> r.secretId(secretId)).secretString();
            if (text == null) {
                throw new IllegalStateException("the secret has no string value (binary secrets are not supported)");
            }
            return text;
        });
    }

    /**
     * Writes a new current version of a secret (PutSecretValue; the new version gets AWSCURRENT).
     *
     * @param secretId     its name or ARN
     * @param value        the SecretString
     * @param requestToken the version's idempotency token (a UUID): a repeated call with the same
     *                     token and value writes nothing new
     */
    public void put(String secretId, String value, String requestToken) {
        call(client -> client.putSecretValue(r -> r.secretId(secretId).secretString(value).clientRequestToken(requestToken)));
    }
}
