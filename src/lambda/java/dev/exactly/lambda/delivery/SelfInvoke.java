package dev.exactly.lambda.delivery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.exactly.destination.DrainTrigger;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.LambdaClientBuilder;
import software.amazon.awssdk.services.lambda.model.InvocationType;
import software.amazon.awssdk.services.lambda.model.InvokeResponse;

/**
 * Asks for a drain by invoking this function itself asynchronously (Lambda Invoke with
 * InvocationType Event, AWS SDK for Java 2.x with its URL-connection HTTP client and the function
 * role's credentials from the environment), with the event {@link DeliverEvent} recognises:
 * {@code {"exactly":"deliver","queue":"<queue>"}}, or {@code {"exactly":"deliver"}} for every queue.
 * Lambda queues the event and answers 202 at once; the drain runs in another invocation.
 *
 * <p>The function invoked is the one this instance serves: the ARN of its current invocation
 * (with its qualifier, e.g. the "live" alias), which {@link #invokedAs} records for each
 * invocation. {@code exactly.invoke.endpoint} replaces the Lambda endpoint (tests serve the Invoke
 * API on loopback); the region is {@code exactly.invoke.region}, else {@code AWS_REGION}. The
 * client is built at the first drain asked for, not before a SnapStart snapshot.
 */
@ApplicationScoped
public class SelfInvoke implements DrainTrigger {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static volatile String functionArn;

    private final Optional<String> endpoint;
    private final Optional<String> region;
    private volatile LambdaClient client;

    /** Constructor injection. */
    public SelfInvoke(@ConfigProperty(name = "exactly.invoke.endpoint") Optional<String> endpoint,
                      @ConfigProperty(name = "exactly.invoke.region") Optional<String> region) {
        this.endpoint = endpoint;
        this.region = region;
    }

    /**
     * Records the ARN the current invocation was made on (Lambda's invoked function ARN).
     *
     * @param arn the ARN, or null when unknown
     */
    public static void invokedAs(String arn) {
        if (arn != null && !arn.isBlank()) {
            functionArn = arn;
        }
    }

    /**
     * @param queue the queue, or null for every queue
     * @return the event that asks for its drain
     */
    public static byte[] event(String queue) {
        ObjectNode o = JSON.createObjectNode().put(DeliverEvent.MEMBER, DeliverEvent.DELIVER);
        if (queue != null) {
            o.put(DeliverEvent.QUEUE, queue);
        }
        return o.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Invokes this function asynchronously with the drain event of {@code queue}.
     *
     * @param queue the queue whose destinations should deliver, or null for every queue
     * @throws IllegalStateException when no invocation was seen yet (the ARN is unknown), or Lambda
     *                               did not accept the event (anything but 202)
     * @throws software.amazon.awssdk.core.exception.SdkException when the call failed
     */
    @Override
    public void requestDrain(String queue) {
        String arn = functionArn;
        if (arn == null) {
            throw new IllegalStateException("the function's own ARN is not known yet");
        }
        InvokeResponse r = client().invoke(b -> b.functionName(arn).invocationType(InvocationType.EVENT)
                .payload(SdkBytes.fromByteArray(event(queue))));
        if (r.statusCode() != 202) {
            throw new IllegalStateException("Lambda answered " + r.statusCode() + " to an asynchronous Invoke");
        }
    }

    private LambdaClient client() {
        LambdaClient c = client;
        if (c == null) {
            synchronized (this) {
                c = client;
                if (c == null) {
                    String r = region.filter(s -> !s.isBlank()).orElse(System.getenv("AWS_REGION"));
                    if (r == null || r.isBlank()) {
                        throw new IllegalStateException("no region is known for Lambda Invoke: set AWS_REGION or exactly.invoke.region");
                    }
                    LambdaClientBuilder b = LambdaClient.builder()
                            .httpClient(UrlConnectionHttpClient.create())
                            .credentialsProvider(EnvironmentVariableCredentialsProvider.create())
                            .region(Region.of(r));
                    endpoint.filter(s -> !s.isBlank()).ifPresent(e -> b.endpointOverride(URI.create(e)));
                    c = b.build();
                    client = c;
                }
            }
        }
        return c;
    }

    @PreDestroy
    void close() {
        LambdaClient c = client;
        if (c != null) {
            c.close();
        }
    }
}
