package dev.exactly.lambda.delivery;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * Recognises the event that asks for a drain of destinations: {@code {"exactly":"deliver"}}
 * (every queue; the schedule's) or {@code {"exactly":"deliver","queue":"<queue>"}} (one queue's; a
 * store's, sent by {@link SelfInvoke}). An API Gateway HTTP API event (payload format 2.0) never
 * matches: it always carries {@code requestContext} and has no top-level {@code exactly} member (a
 * request's body is a string inside it).
 */
public final class DeliverEvent {

    /** The member that marks the event. */
    static final String MEMBER = "exactly";
    /** Its value. */
    static final String DELIVER = "deliver";
    /** The member naming the queue. */
    static final String QUEUE = "queue";

    private static final JsonFactory JSON = new JsonFactory();

    /** A drain asked for; {@code queue} null for every queue. */
    public record Drain(String queue) {
    }

    private DeliverEvent() {
    }

    /**
     * @param event the invocation's event JSON
     * @return the drain it asks for, or null when it is not a deliver event (including JSON that
     *         does not parse, or a queue that is not a string)
     */
    public static Drain parse(byte[] event) {
        String marker = null;
        String queue = null;
        try (JsonParser p = JSON.createParser(event)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "rawPath", "requestContext", "httpMethod" -> {
                        return null;
                    }
                    case MEMBER -> marker = value == JsonToken.VALUE_STRING ? p.getText() : null;
                    case QUEUE -> {
                        if (value != JsonToken.VALUE_STRING) {
                            return null;
                        }
                        queue = p.getText();
                    }
                    default -> {
                    }
                }
                p.skipChildren();
            }
        } catch (IOException e) {
            return null;
        }
        return DELIVER.equals(marker) ? new Drain(queue) : null;
    }
}
