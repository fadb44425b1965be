package dev.exactly.lambda;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * Recognises the event EventBridge sends when a schedule rule fires and its target has no input
 * of its own: a JSON object with {@code "source": "aws.events"} and
 * {@code "detail-type": "Scheduled Event"} (AWS Lambda Developer Guide, "Invoke a Lambda function
 * on a schedule", sample event: version "0", id, detail-type, source, account, time, region,
 * resources with the rule's ARN, detail {}). An API Gateway HTTP API event (payload format 2.0)
 * never matches: it always carries {@code requestContext} and has no {@code source} member, and a
 * request's body is a string inside it, never a top-level member.
 */
final class ScheduledEvent {

    private static final JsonFactory JSON = new JsonFactory();

    private ScheduledEvent() {
    }

    /**
     * Reads the top-level members of an event only as far as needed (stops at {@code rawPath} or
     * {@code requestContext}, which only HTTP events have).
     *
     * @param event the invocation's event JSON
     * @return true for EventBridge's scheduled event, false for anything else (including JSON
     *         that does not parse: Quarkus' handler then answers it as it always did)
     */
    static boolean matches(byte[] event) {
        String source = null;
        String detailType = null;
        try (JsonParser p = JSON.createParser(event)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "rawPath", "requestContext", "httpMethod" -> {
                        return false;
                    }
                    case "source" -> source = value == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "detail-type" -> detailType = value == JsonToken.VALUE_STRING ? p.getText() : null;
                    default -> {
                    }
                }
                p.skipChildren();
            }
        } catch (IOException e) {
            return false;
        }
        return "aws.events".equals(source) && "Scheduled Event".equals(detailType);
    }
}
