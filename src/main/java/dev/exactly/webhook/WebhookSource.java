package dev.exactly.webhook;

import dev.exactly.webhook.key.KeyExtractor;
import dev.exactly.webhook.key.PartitionSelector;
import dev.exactly.webhook.signature.SignatureVerifier;
import java.util.List;

/**
 * One configured, enabled webhook source, ready to take deliveries.
 *
 * @param name         the {source} path segment
 * @param queue        the queue its deliveries are pushed to
 * @param partition    chooses each delivery's partition
 * @param key          derives each delivery's deduplication key
 * @param signature    verifies each delivery's signature
 * @param keptHeaders  header names stored with each message, lower-case
 * @param maxBodyBytes the largest body accepted, in bytes
 * @param window       the deduplication window its queue should have, or null to leave the queue's own
 * @param handshake    the provider's ownership challenge, answered instead of stored; or null
 */
public record WebhookSource(String name, String queue, PartitionSelector partition, KeyExtractor key,
                            SignatureVerifier signature, List<String> keptHeaders, long maxBodyBytes,
                            DedupWindow window, Handshake handshake) {
}
