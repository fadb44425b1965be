package dev.exactly.destination;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;

/**
 * Sends one message to an sqs destination: SendMessage to its queue, standard or FIFO (a queue URL
 * ending with {@code .fifo}). The body is the payload as it is when it is JSON text whose characters
 * SQS accepts, else its base64; the message attributes say where it comes from: {@code messageId},
 * {@code queue}, {@code partition} (String), {@code offset} (Number), {@code transactionId}
 * (String, or Binary of its UTF-8 bytes when it holds a character SQS refuses), {@code attempt}
 * (Number), {@code payloadEncoding} ({@code json} or {@code base64}) and {@code contentType} (a
 * webhook body's media type, when there is one). On a FIFO queue, MessageGroupId is
 * {@link AwsPayload#groupId} of queue and partition, MessageDeduplicationId the messageId.
 * A message over SQS's size limit, counted with its attempt number as wide as the widest one
 * ({@link AwsPayload#ATTEMPT_DIGITS}), is not sent: it is dead-lettered for the destination at once.
 */
final class SqsSender implements Sender {

    /**
     * Largest SQS message, in bytes: 1 MiB, the body and every attribute's name, type and value
     * (Amazon SQS API reference, SendMessage's MessageBody).
     */
    static final int MAX_MESSAGE_BYTES = 1_048_576;

    private final AwsClients clients;
    private final AddressGuard guard;

    SqsSender(AwsClients clients, AddressGuard guard) {
        this.clients = clients;
        this.guard = guard;
    }

    @Override
    public Result send(Destination d, Outgoing m, int attempt) {
        Destination.Aws a = d.aws();
        String json = AwsPayload.json(m.body());
        boolean asJson = json != null && !json.isEmpty() && AwsPayload.sqsText(json);
        String body = asJson ? json : Base64.getEncoder().encodeToString(m.body());
        if (body.isEmpty()) {
            return Result.refused("the payload is empty, and an SQS message body needs at least one character: not sent");
        }
        Map<String, MessageAttributeValue> attributes = new LinkedHashMap<>();
        string(attributes, "messageId", m.messageId());
        string(attributes, "queue", m.queue());
        string(attributes, "partition", m.partition());
        number(attributes, "offset", m.offset());
        if (m.transactionId() != null) {
            if (AwsPayload.sqsText(m.transactionId())) {
                string(attributes, "transactionId", m.transactionId());
            } else {
                attributes.put("transactionId", MessageAttributeValue.builder().dataType("Binary")
                        .binaryValue(SdkBytes.fromUtf8String(m.transactionId())).build());
            }
        }
        number(attributes, "attempt", attempt);
        string(attributes, "payloadEncoding", asJson ? AwsPayload.JSON : AwsPayload.BASE64);
        if (m.contentType() != null && !m.contentType().isEmpty() && AwsPayload.sqsText(m.contentType())) {
            string(attributes, "contentType", m.contentType());
        }
        // counted with the widest attempt number, so that no later attempt crosses the limit
        long size = size(body, attributes) + AwsPayload.attemptPadding(attempt);
        if (size > MAX_MESSAGE_BYTES) {
            return Result.refused("the SQS message would be " + size + " bytes (body " + (asJson ? "as JSON" : "base64-encoded")
                    + " and attributes, the attempt counted as " + AwsPayload.ATTEMPT_DIGITS + " digits), over SQS's limit of "
                    + MAX_MESSAGE_BYTES + " bytes (1 MiB): not sent");
        }
        String refused = Senders.refusedEndpoint(a, guard);
        if (refused != null) {
            return new Result(false, 0, null, refused);
        }
        SendMessageRequest.Builder r = SendMessageRequest.builder()
                .queueUrl(a.queueUrl())
                .messageBody(body)
                .messageAttributes(attributes)
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofMillis(d.timeoutMs())));
        if (DestinationRules.fifo(a.queueUrl())) {
            r.messageGroupId(AwsPayload.groupId(m.queue(), m.partition())).messageDeduplicationId(m.messageId());
        }
        String region = a.region() != null ? a.region() : AwsClients.sqsRegion(a.queueUrl());
        return Senders.call("SQS", d, () -> {
            SqsClient client = clients.client("sqs", region, a.endpoint(), SqsClient::builder);
            client.sendMessage(r.build());
        });
    }

    private static void string(Map<String, MessageAttributeValue> attributes, String name, String value) {
        attributes.put(name, MessageAttributeValue.builder().dataType("String").stringValue(value).build());
    }

    private static void number(Map<String, MessageAttributeValue> attributes, String name, long value) {
        attributes.put(name, MessageAttributeValue.builder().dataType("Number").stringValue(Long.toString(value)).build());
    }

    /** A message's size as SQS counts it: the body, and each attribute's name, data type and value, in bytes. */
    static long size(String body, Map<String, MessageAttributeValue> attributes) {
        long n = body.getBytes(StandardCharsets.UTF_8).length;
        for (Map.Entry<String, MessageAttributeValue> e : attributes.entrySet()) {
            MessageAttributeValue v = e.getValue();
            n += e.getKey().getBytes(StandardCharsets.UTF_8).length + v.dataType().getBytes(StandardCharsets.UTF_8).length;
            n += v.stringValue() != null ? v.stringValue().getBytes(StandardCharsets.UTF_8).length : v.binaryValue().asByteArray().length;
        }
        return n;
    }

    @Override
    public void close() {
        // the clients are AwsClients', closed with it
    }
}
