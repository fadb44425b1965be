package dev.exactly.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A consumer: pops a batch from a queue (consumer group "soak", a short lease so that deliveries
 * whose reply was lost come back soon) and acks every message "completed" in one ack batch,
 * retrying the same ack batch after a 503 (a repeated ack is answered as a replay).
 *
 * <p>Its exactness claim, audited: a message whose "completed" ack was confirmed is never
 * delivered to the group again (a pop sent after the confirmation must not return it), and a
 * delivered message always resolves (never "unresolved"). Deliveries may repeat before that
 * (at-least-once: a lost pop reply, an expired lease).
 */
final class HttpPopAck implements SoakOperation {

    private final SoakHttp http;
    private final List<String> queues;
    private final Map<UUID, Long> completedAt = new ConcurrentHashMap<>();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong redeliveredAfterAck = new AtomicLong();
    private final AtomicLong unresolved = new AtomicLong();
    private final AtomicLong leaseMismatch = new AtomicLong();

    HttpPopAck(SoakHttp http, List<String> queues) {
        this.http = http;
        this.queues = queues;
    }

    @Override
    public String name() {
        return "pop-ack-http";
    }

    @Override
    public void run(Random rnd, SoakStats stats) throws Exception {
        String queue = queues.get(rnd.nextInt(queues.size()));
        long sentAt = System.nanoTime();
        HttpResponse<String> r = http.call("/api/v1/pop", "{\"queue\":\"" + queue
                + "\",\"consumerGroup\":\"soak\",\"batch\":10,\"leaseSeconds\":5,\"waitMillis\":0}", rnd, stats);
        if (r.statusCode() != 200) {
            throw new IllegalStateException("pop: HTTP " + r.statusCode() + " " + r.body());
        }
        JsonNode messages = SoakHttp.JSON.readTree(r.body()).get("messages");
        stats.operation("pop-http");
        if (messages.isEmpty()) {
            Thread.sleep(20);
            return;
        }
        ObjectNode ack = SoakHttp.JSON.createObjectNode();
        ArrayNode items = ack.putArray("items");
        for (JsonNode m : messages) {
            UUID id = UUID.fromString(m.get("messageId").asText());
            delivered.incrementAndGet();
            Long done = completedAt.get(id);
            if (done != null && done < sentAt) {
                redeliveredAfterAck.incrementAndGet();
                stats.error("message " + id + " delivered again after its completed ack was confirmed");
            }
            items.addObject().put("messageId", id.toString()).put("consumerGroup", "soak")
                    .put("leaseId", m.get("leaseId").asText()).put("status", "completed");
        }
        HttpResponse<String> a = http.call("/api/v1/ack/batch", SoakHttp.JSON.writeValueAsString(ack), rnd, stats);
        if (a.statusCode() != 200) {
            throw new IllegalStateException("ack: HTTP " + a.statusCode() + " " + a.body());
        }
        long now = System.nanoTime();
        for (JsonNode res : SoakHttp.JSON.readTree(a.body()).get("results")) {
            switch (res.get("result").asText()) {
                case "acked" -> {
                    if ("completed".equals(res.path("outcome").asText())) {
                        completedAt.putIfAbsent(UUID.fromString(res.get("messageId").asText()), now);
                    }
                }
                case "lease-mismatch" -> leaseMismatch.incrementAndGet(); // the lease expired under a fault
                default -> {
                    unresolved.incrementAndGet();
                    stats.error("a delivered message did not resolve: " + res);
                }
            }
        }
        stats.operation(name());
    }

    @Override
    public void audit(SoakStats stats) {
        stats.audited(String.format("consume audit: delivered=%d completed=%d lease-mismatch=%d unresolved=%d "
                        + "redelivered-after-completed-ack=%d", delivered.get(), completedAt.size(), leaseMismatch.get(),
                unresolved.get(), redeliveredAfterAck.get()),
                unresolved.get(), redeliveredAfterAck.get());
    }
}
