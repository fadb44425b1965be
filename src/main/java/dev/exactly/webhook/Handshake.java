package dev.exactly.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import dev.exactly.problem.ApiProblem;

/**
 * A provider's endpoint-ownership challenge, answered with its challenge string and never stored:
 * Slack's {@code url_verification} (body type, answer the body's challenge: Slack API docs, "Events
 * API", URL verification) and Twitch's {@code webhook_callback_verification}
 * (Twitch-Eventsub-Message-Type header, answer the body's challenge as text/plain: Twitch
 * Developers, "Handling webhook events"). Both are signed like every other delivery.
 */
public enum Handshake {

    /** Slack Events API. */
    SLACK {
        @Override
        boolean is(Delivery d) {
            return "url_verification".equals(text(d, "/type"));
        }
    },

    /** Twitch EventSub. */
    TWITCH {
        @Override
        boolean is(Delivery d) {
            return "webhook_callback_verification".equals(d.header("Twitch-Eventsub-Message-Type"));
        }
    };

    /** @return true when the delivery is this provider's challenge (not an event to store) */
    abstract boolean is(Delivery d);

    /**
     * @return the challenge to answer
     * @throws ApiProblem 400 when the challenge is missing
     */
    String challenge(Delivery d) {
        String c = text(d, "/challenge");
        if (c == null || c.isEmpty()) {
            throw ApiProblem.invalid(null, "/challenge", "is required in a verification request");
        }
        return c;
    }

    private static String text(Delivery d, String pointer) {
        JsonNode n;
        try {
            n = d.json("the handshake check").at(pointer);
        } catch (ApiProblem notJson) {
            return null;
        }
        return n.isTextual() ? n.textValue() : null;
    }
}
