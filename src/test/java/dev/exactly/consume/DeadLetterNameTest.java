package dev.exactly.consume;

import static dev.exactly.consume.ConsumeFixtures.ack;
import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.consume.ConsumeFixtures.pop;
import static dev.exactly.consume.ConsumeFixtures.push;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every queue's dead-letter queue is reachable: "&lt;queue&gt;.dlq" when it fits the 255-character
 * name rule, else the first 234 characters, "-", 16 hex digits of the name's SHA-256 and ".dlq".
 */
@QuarkusTest
class DeadLetterNameTest {

    /** docs/consuming.md's rule, computed independently of the SQL that applies it. */
    private static String deadLetterQueue(String queue) throws Exception {
        if (queue.length() + 4 <= 255) {
            return queue + ".dlq";
        }
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(queue.getBytes(StandardCharsets.UTF_8));
        return queue.substring(0, 234) + "-" + HexFormat.of().formatHex(sha).substring(0, 16) + ".dlq";
    }

    /** Dead-letters a message popped by group g and returns the copy, popped (by g) from the DLQ. */
    private static Map<String, Object> deadLetter(Map<String, Object> m) throws Exception {
        String queue = (String) m.get("queue");
        ack(ackById(m, "g", "dlq")).then().statusCode(200).body("outcome", equalTo("dead-lettered"));
        String dlq = deadLetterQueue(queue);
        assertEquals(dlq, DeadLetters.queueOf(queue), "the Java spelling of the rule agrees");
        List<Map<String, Object>> dead = pop(dlq, "p", "g", 5);
        assertEquals(1, dead.size(), "the copy is in " + dlq);
        assertEquals(dlq, dead.get(0).get("queue"));
        @SuppressWarnings("unchecked")
        Map<String, Object> origin = (Map<String, Object>) ((Map<String, Object>) dead.get(0).get("headers"))
                .get("x-exactly-dead-letter");
        assertEquals(queue, origin.get("queue"));
        // GET, PATCH and configure accept the name
        api().get("/api/v1/queues/" + dlq).then().statusCode(200);
        api().body(Map.of("options", Map.of("retryLimit", 1))).patch("/api/v1/queues/" + dlq).then().statusCode(200);
        api().body(Map.of("queue", dlq, "options", Map.of("retryLimit", 2))).post("/api/v1/configure")
                .then().statusCode(200);
        return dead.get(0);
    }

    @Test
    void theDeadLetterQueueOfA255CharacterQueueIsReachableAndSoIsItsOwn() throws Exception {
        String queue = "dl-" + "x".repeat(252);
        assertEquals(255, queue.length());
        push(queue, "p", "t", "{\"n\":1}");
        Map<String, Object> copy = deadLetter(pop(queue, "p", "g", 1).get(0));
        String dlq = deadLetterQueue(queue);
        assertEquals(255, dlq.length());
        // the dead-letter queue's own dead letters: the same rule, a name that fits again
        Map<String, Object> second = deadLetter(copy);
        assertEquals(copy.get("payload"), second.get("payload"));
    }

    @Test
    void namesUpTo251CharactersKeepTheirDotDlqSuffix() throws Exception {
        for (int length : new int[] {251, 252}) {
            String queue = ("dm" + length + "-" + "y".repeat(length)).substring(0, length);
            push(queue, "p", "t", "1");
            deadLetter(pop(queue, "p", "g", 1).get(0));
            String dlq = deadLetterQueue(queue);
            assertEquals(255, dlq.length());
            if (length == 251) {
                assertEquals(queue + ".dlq", dlq);
            } else {
                assertEquals(queue.substring(0, 234) + "-", dlq.substring(0, 235));
            }
        }
    }
}
