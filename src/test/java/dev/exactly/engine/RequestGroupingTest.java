package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RequestGroupingTest {

    private static PushCommand item(String queue, String partition, String txn) {
        return PushCommand.json(queue, partition, txn, "1".getBytes(StandardCharsets.UTF_8), null);
    }

    @Test
    void laterOccurrencesOfAKeyFollowTheFirst() {
        RequestGrouping g = RequestGrouping.of(List.of(item("q", "p", "a"), item("q", "p", "b"), item("q", "p", "a"),
                item("q", "p", "a")));
        assertEquals(1, g.segments().size());
        assertEquals(2, g.segments().get(0).items().size());
        assertEquals(0, g.leaderOf(2));
        assertEquals(0, g.leaderOf(3));
        assertEquals(1, g.leaderOf(1));
    }

    @Test
    void theKeyIsScopedToQueueAndPartition() {
        RequestGrouping g = RequestGrouping.of(List.of(item("q", "0", "a"), item("q", "1", "a"), item("r", "0", "a")));
        assertEquals(3, g.segments().size());
        for (int i = 0; i < 3; i++) {
            assertEquals(i, g.leaderOf(i));
        }
    }

    @Test
    void itemsWithoutTransactionIdUseTheirOwnMessageIdAndAreNotProbed() {
        RequestGrouping g = RequestGrouping.of(List.of(item("q", "p", null), item("q", "p", null)));
        List<PushItem> items = g.segments().get(0).items();
        assertEquals(2, items.size());
        for (PushItem it : items) {
            assertEquals(it.messageId().toString(), it.transactionId());
            assertTrue(!it.probe());
        }
        assertNotEquals(items.get(0).messageId(), items.get(1).messageId());
    }

    @Test
    void followersInheritTheLeadersFinalVerdictAsDuplicates() {
        RequestGrouping g = RequestGrouping.of(List.of(item("q", "p", "a"), item("q", "p", "a")));
        UUID original = UUID.randomUUID();
        PushVerdict[] v = new PushVerdict[2];
        // the leader itself turned out to duplicate a stored message
        v[0] = new PushVerdict(0, "q", "p", "a", original, PushStatus.DUPLICATE, 7);
        List<PushVerdict> out = g.assemble(v);
        assertEquals(original, out.get(1).messageId());
        assertEquals(PushStatus.DUPLICATE, out.get(1).status());
        assertEquals(1, out.get(1).index());
    }
}
