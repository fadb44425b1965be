package dev.exactly.destination;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkClient;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * The AWS SDK v2 clients of the AWS destinations: one per service, region and endpoint, all over
 * one URL-connection HTTP client, with the SDK's default credentials provider chain (environment,
 * system properties, web identity, profile, container or instance role; in Lambda the function's
 * role) and no retry of the SDK's own: delivery retries with its destination's backoff. Made on
 * first use, so an instance without AWS destinations never loads the SDK.
 */
final class AwsClients implements AutoCloseable {

    private static final Pattern SQS_HOST_REGION = Pattern.compile("(?:^|\\.)sqs\\.([a-z0-9-]+)\\.amazonaws\\.com(?:\\.cn)?$");
    private static final Pattern LEGACY_SQS_HOST_REGION = Pattern.compile("^([a-z0-9-]+)\\.queue\\.amazonaws\\.com(?:\\.cn)?$");
    private static final Pattern ARN_REGION = Pattern.compile("^arn:aws[\\w-]*:events:([a-z0-9-]+):");

    private final SdkHttpClient http = UrlConnectionHttpClient.builder()
            .connectionTimeout(Duration.ofSeconds(10))
            .socketTimeout(Duration.ofSeconds(60)) // an attempt is bounded by its destination's timeoutMs (the API call timeout)
            .build();
    private final DefaultCredentialsProvider credentials = DefaultCredentialsProvider.builder().build();
    private final Map<String, SdkClient> clients = new ConcurrentHashMap<>();

    /**
     * The client of a service for a region and an endpoint, made once.
     *
     * @param service  the service's name, part of the key
     * @param region   the region, or null: the SDK's default (AWS_REGION, the profile, …)
     * @param endpoint the endpoint override, or null: AWS's regional endpoint
     * @param builder  a new builder of the service's client
     */
    @SuppressWarnings("unchecked")
    <C extends SdkClient, B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>> C client(
            String service, String region, String endpoint, Supplier<B> builder) {
        return (C) clients.computeIfAbsent(service + " " + region + " " + endpoint, k -> {
            B b = builder.get()
                    .credentialsProvider(credentials)
                    .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                    .httpClient(http);
            if (region != null) {
                b.region(Region.of(region));
            }
            if (endpoint != null) {
                b.endpointOverride(URI.create(endpoint));
            }
            return b.build();
        });
    }

    /** @return the region of an SQS queue URL on AWS's own host names, or null */
    static String sqsRegion(String queueUrl) {
        String host = URI.create(queueUrl).getHost();
        if (host == null) {
            return null;
        }
        Matcher m = SQS_HOST_REGION.matcher(host);
        if (m.find()) {
            return m.group(1);
        }
        m = LEGACY_SQS_HOST_REGION.matcher(host);
        return m.find() ? m.group(1) : null;
    }

    /** @return the region of an event bus ARN, or null for a bus name */
    static String busRegion(String eventBus) {
        Matcher m = ARN_REGION.matcher(eventBus);
        return m.find() ? m.group(1) : null;
    }

    @Override
    public void close() {
        clients.values().forEach(SdkClient::close);
        clients.clear();
        http.close();
        credentials.close();
    }
}
