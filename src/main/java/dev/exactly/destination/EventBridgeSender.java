package dev.exactly.destination;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequest;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResultEntry;

/**
 * Sends one message to an eventbridge destination: PutEvents of one entry to its event bus, with
 * its Source and DetailType. The entry's Detail is a JSON object: {@code messageId}, {@code queue},
 * {@code partition}, {@code offset}, {@code transactionId}, {@code attempt}, {@code contentType}
 * (a webhook body's media type, when there is one), {@code payloadEncoding} and {@code payload}:
 * the payload itself when it is JSON text ({@code json}), else a string of its base64
 * ({@code base64}). An entry EventBridge reports as failed (FailedEntryCount, the entry's ErrorCode)
 * is a failed attempt. An entry over EventBridge's size limit, counted with its attempt number as
 * wide as the widest one ({@link AwsPayload#ATTEMPT_DIGITS}), is not sent: it is dead-lettered for
 * the destination at once.
 */
final class EventBridgeSender implements Sender {

    /**
     * Largest PutEvents entry, in bytes: 256 KB, counted as EventBridge does (the UTF-8 bytes of
     * Source, DetailType and Detail; no Time nor Resources is sent) (Amazon EventBridge API
     * reference, PutEvents; user guide, "Calculating PutEvents event entry size").
     */
    static final int MAX_ENTRY_BYTES = 262_144;

    private static final JsonFactory JSON = new JsonFactory();

    private final AwsClients clients;
    private final AddressGuard guard;

    EventBridgeSender(AwsClients clients, AddressGuard guard) {
        this.clients = clients;
        this.guard = guard;
    }

    @Override
    public Result send(Destination d, Outgoing m, int attempt) {
        Destination.Aws a = d.aws();
        String json = AwsPayload.eventBridgeJson(m.body());
        String detail = detail(m, attempt, json);
        // counted with the widest attempt number, so that no later attempt crosses the limit
        long size = (long) a.source().getBytes(StandardCharsets.UTF_8).length + a.detailType().getBytes(StandardCharsets.UTF_8).length
                + detail.getBytes(StandardCharsets.UTF_8).length + AwsPayload.attemptPadding(attempt);
        if (size > MAX_ENTRY_BYTES) {
            return Result.refused("the EventBridge entry would be " + size + " bytes (Source, DetailType and Detail, the payload "
                    + (json != null ? "as JSON" : "base64-encoded") + ", the attempt counted as " + AwsPayload.ATTEMPT_DIGITS
                    + " digits), over EventBridge's limit of " + MAX_ENTRY_BYTES
                    + " bytes (256 KB) per entry: not sent");
        }
        String refused = Senders.refusedEndpoint(a, guard);
        if (refused != null) {
            return new Result(false, 0, null, refused);
        }
        PutEventsRequest request = PutEventsRequest.builder()
                .entries(PutEventsRequestEntry.builder()
                        .eventBusName(a.eventBus())
                        .source(a.source())
                        .detailType(a.detailType())
                        .detail(detail)
                        .build())
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofMillis(d.timeoutMs())))
                .build();
        String region = a.region() != null ? a.region() : AwsClients.busRegion(a.eventBus());
        PutEventsResponse[] answer = new PutEventsResponse[1];
        Result r = Senders.call("EventBridge", d, () -> {
            EventBridgeClient client = clients.client("eventbridge", region, a.endpoint(), EventBridgeClient::builder);
            answer[0] = client.putEvents(request);
        });
        if (!r.delivered()) {
            return r;
        }
        PutEventsResultEntry entry = answer[0].hasEntries() && !answer[0].entries().isEmpty() ? answer[0].entries().get(0) : null;
        Integer failed = answer[0].failedEntryCount();
        if ((failed != null && failed > 0) || entry == null || entry.errorCode() != null) {
            return new Result(false, 200, null, "EventBridge did not take the event: "
                    + (entry == null ? "its answer has no entry"
                    : entry.errorCode() + (entry.errorMessage() == null ? "" : ": " + entry.errorMessage())));
        }
        return r;
    }

    /** The entry's Detail: the message's place and its payload, as JSON or as base64. */
    static String detail(Outgoing m, int attempt, String json) {
        StringWriter out = new StringWriter(m.body().length + 256);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("messageId", m.messageId());
            g.writeStringField("queue", m.queue());
            g.writeStringField("partition", m.partition());
            g.writeNumberField("offset", m.offset());
            if (m.transactionId() != null) {
                g.writeStringField("transactionId", m.transactionId());
            }
            g.writeNumberField("attempt", attempt);
            if (m.contentType() != null) {
                g.writeStringField("contentType", m.contentType());
            }
            if (json != null) {
                g.writeStringField("payloadEncoding", AwsPayload.JSON);
                g.writeFieldName("payload");
                g.writeRawValue(json.strip());
            } else {
                g.writeStringField("payloadEncoding", AwsPayload.BASE64);
                g.writeStringField("payload", Base64.getEncoder().encodeToString(m.body()));
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    @Override
    public void close() {
        // the clients are AwsClients', closed with it
    }
}
