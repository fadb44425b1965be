package dev.exactly.webhook.replay;

import java.util.Map;

/**
 * One recorded delivery: what a sender posted.
 *
 * @param line    its 1-based line number in the JSONL file
 * @param headers request headers, name to value, in recorded order
 * @param body    the exact body bytes (the recorded string's UTF-8 bytes)
 */
public record RecordedDelivery(int line, Map<String, String> headers, byte[] body) {
}
