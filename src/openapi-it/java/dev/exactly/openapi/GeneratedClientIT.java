package dev.exactly.openapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.client.ApiClient;
import dev.exactly.client.ApiException;
import dev.exactly.client.api.ConsumeResourceApi;
import dev.exactly.client.api.PushResourceApi;
import dev.exactly.client.api.TaskResourceApi;
import dev.exactly.client.model.AckRequest;
import dev.exactly.client.model.AckResult;
import dev.exactly.client.model.ClaimRequest;
import dev.exactly.client.model.CompleteRequest;
import dev.exactly.client.model.PopRequest;
import dev.exactly.client.model.PoppedMessage;
import dev.exactly.client.model.PushItem;
import dev.exactly.client.model.PushRequest;
import dev.exactly.client.model.PushResult;
import dev.exactly.client.model.TaskRequest;
import dev.exactly.client.model.TaskView;
import dev.exactly.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document is usable by a client generator: the Java client that openapi-generator
 * made from this build's own document (target/openapi/openapi.yaml, see the server profile in
 * pom.xml) pushes, pops, acks and runs tasks against the service on the embedded PostgreSQL, and
 * reads a refusal as problem+json. Runs in the integration-test phase, after the client is
 * generated and compiled.
 */
@QuarkusTest
class GeneratedClientIT {

    private ApiClient client;

    @BeforeEach
    void client() {
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        client = new ApiClient();
        client.updateBaseUri("http://127.0.0.1:" + port);
        client.setRequestInterceptor(b -> b.header("Authorization", "Bearer " + Api.TEST_API_KEY));
    }

    @Test
    void pushPopAndAckThroughTheGeneratedClient() throws ApiException {
        String queue = "generated-" + UUID.randomUUID().toString().substring(0, 8);
        PushResourceApi push = new PushResourceApi(client);
        PushRequest request = new PushRequest().items(List.of(
                new PushItem().queue(queue).transactionId("order-1").payload(Map.of("total", 12.5)),
                new PushItem().queue(queue).transactionId("order-2").payload(List.of(1, "two"))));

        List<PushResult> first = push.push(request).getResults();
        List<PushResult> again = push.push(request).getResults();

        // status is an enum in the document, so the generated client has one
        assertEquals(List.of(PushResult.StatusEnum.QUEUED, PushResult.StatusEnum.QUEUED),
                first.stream().map(PushResult::getStatus).toList());
        assertEquals(List.of(PushResult.StatusEnum.DUPLICATE, PushResult.StatusEnum.DUPLICATE),
                again.stream().map(PushResult::getStatus).toList());
        assertEquals(first.get(0).getMessageId(), again.get(0).getMessageId());

        ConsumeResourceApi consume = new ConsumeResourceApi(client);
        List<PoppedMessage> popped = consume.pop(new PopRequest().queue(queue).consumerGroup("g").batch(10))
                .getMessages();
        assertEquals(2, popped.size());
        assertEquals(Map.of("total", 12.5), popped.get(0).getPayload());
        assertEquals(List.of(1, "two"), popped.get(1).getPayload());
        for (PoppedMessage m : popped) {
            AckResult r = consume.ack(new AckRequest().messageId(m.getMessageId()).leaseId(m.getLeaseId())
                    .consumerGroup("g").status(AckRequest.StatusEnum.COMPLETED));
            assertEquals("acked", r.getResult());
        }
        assertTrue(consume.pop(new PopRequest().queue(queue).consumerGroup("g")).getMessages().isEmpty());
    }

    @Test
    void aTaskRunsThroughTheGeneratedClient() throws ApiException {
        String queue = "generated-tasks-" + UUID.randomUUID().toString().substring(0, 8);
        TaskResourceApi tasks = new TaskResourceApi(client);
        TaskRequest task = new TaskRequest().queue(queue).type("send").data(Map.of("to", "x")).autoDedupe(true);
        assertEquals("enqueued", tasks.enqueue(task).getStatus());
        assertEquals("duplicate", tasks.enqueue(task).getStatus());
        TaskView claimed = tasks.claim(new ClaimRequest().queue(queue).limit(5)).getTasks().get(0);
        TaskView done = tasks.complete(claimed.getId(), new CompleteRequest().leaseId(claimed.getLeaseId())
                .result(Map.of("sent", true)), queue);
        assertEquals("completed", done.getState());
        assertEquals(Map.of("sent", true), done.getResult());
    }

    @Test
    void aRefusalArrivesAsAProblemDocument() {
        PushResourceApi push = new PushResourceApi(client);
        ApiException e = assertThrows(ApiException.class, () -> push.push(new PushRequest().items(List.of(
                new PushItem().queue("not a queue name").payload(1)))));
        assertEquals(400, e.getCode());
        assertTrue(e.getResponseHeaders().firstValue("content-type").orElse("").startsWith("application/problem+json"));
        assertTrue(e.getResponseBody().contains("\"/problems/invalid-request\""), e.getResponseBody());
    }
}
