package dev.exactly.push;

import dev.exactly.engine.PushCommand;
import dev.exactly.http.Checked;
import dev.exactly.http.IndexedItems;
import dev.exactly.http.RawJson;
import dev.exactly.naming.Key;
import dev.exactly.naming.Name;
import dev.exactly.naming.Names;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of a push, {@code {"items":[{"queue","partition"?,"transactionId"?,"payload","traceId"?,"headers"?}]}}.
 * Each payload is kept as the exact bytes of its JSON value in the body ({@link RawJson}); unknown
 * fields and repeated member names are refused, as a misspelt {@code transactionID} would otherwise
 * silently turn deduplication off. At most {@code exactly.push.max-items} items.
 *
 * @param items the items, at least one
 */
@RegisterForReflection
@IndexedItems
@Schema(name = "PushRequestRecord", ref = "PushRequest") // its schema, in META-INF/openapi.yaml
public record PushRequest(@NotNull(message = "is required") @Size(min = 1, message = "must hold at least one item")
                          List<@NotNull(message = "an item must be a JSON object") @Valid Item> items) {

    /** What a missing or null payload is told. */
    static final String PAYLOAD = "is required (any JSON value but null)";

    /**
     * Whether every constraint of this body holds, checked directly: true exactly when Hibernate
     * Validator finds no violation in it (the annotations on this record and on {@link Item}, and
     * {@link Item#check}). The push resource runs the validator only when this is false, so a
     * valid body does not pay the validator's walk over each of its items, and a refused one is
     * answered in the validator's words. A constraint added to either record needs its line here
     * ({@code PushRequestValidTest} compares the two on generated bodies, and lists the annotations).
     *
     * @return true when the validator would report nothing
     */
    public boolean valid() {
        if (items == null || items.isEmpty()) {
            return false;
        }
        for (Item item : items) {
            if (item == null || !item.valid()) {
                return false;
            }
        }
        return true;
    }

    /**
     * One item to push (also a transaction's push operation's).
     *
     * <p>Its headers column holds the user's {@code headers} and the item's stored fields, built in
     * one place: {@link #storedFields()} ({@link ItemHeaders}). A new optional field kept with the
     * message is a component with its constraints and one line there (docs/contributing.md,
     * "Adding a push field").
     *
     * @param queue         queue name
     * @param partition     partition name; absent, null or Default for none
     * @param transactionId the idempotency key, at most 256 UTF-8 bytes; absent for the message's own id
     * @param payload       any JSON value but null, stored byte for byte
     * @param traceId       stored with the message, at most 256 UTF-8 bytes
     * @param headers       string values by name, kept with the message ({@link ItemHeaders}'s limits); absent for none
     */
    @RegisterForReflection
    @Checked
    public record Item(@NotNull(message = "is required") @Name String queue, @Name String partition,
                       @Key(maxBytes = Names.MAX_TRANSACTION_ID_BYTES) String transactionId,
                       @NotNull(message = PAYLOAD) RawJson payload,
                       @Key(maxBytes = Names.MAX_TRACE_ID_BYTES) String traceId,
                       Map<String, String> headers) implements Checked.Rules {

        @Override
        public void check(BiConsumer<String, String> broken) {
            if (payload != null && payload.isNull()) {
                broken.accept("payload", PAYLOAD);
            }
            ItemHeaders.check(headers, storedFields(), broken);
        }

        /** Whether this item's constraints hold: its part of {@link PushRequest#valid()}. */
        boolean valid() {
            if (queue == null || Names.checkName(queue) != null
                    || partition != null && Names.checkName(partition) != null
                    || transactionId != null && Names.checkKey(transactionId, Names.MAX_TRANSACTION_ID_BYTES) != null
                    || payload == null
                    || traceId != null && Names.checkKey(traceId, Names.MAX_TRACE_ID_BYTES) != null) {
                return false;
            }
            boolean[] holds = {true};
            check((field, why) -> holds[0] = false);
            return holds[0];
        }

        /**
         * The fields kept among the message's headers, under their own names (which a user header
         * may then not take): one {@code "name", value,} line each; a null value is not stored.
         */
        private String[] storedFields() {
            return ItemHeaders.NONE;
        }

        /** @return the engine's command */
        public PushCommand command() {
            return PushCommand.json(queue, partition, transactionId, payload.bytes(),
                    ItemHeaders.json(headers, storedFields()), traceId);
        }
    }
}
