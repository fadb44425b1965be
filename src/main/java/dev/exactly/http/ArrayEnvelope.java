package dev.exactly.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A body whose only member is one array of items, {@code {"<name>":[item, …]}} (push
 * {@code items}, task {@code tasks}, transaction {@code operations}, ack batch {@code items}):
 * any other member is an unknown field, the array is required, and more than {@code maxItems}
 * items are refused as soon as the first one too many is met. Each item is read by the caller's
 * {@link Item} at its {@link ErrorPath}; reading stops with a 400 once
 * {@link #MAX_REPORTED_ERRORS} errors are collected, and the problem's detail names items by
 * the envelope ({@code tasks[3].type}).
 */
public final class ArrayEnvelope {

    /** Errors collected before a request is refused without reading further. */
    public static final int MAX_REPORTED_ERRORS = 50;

    /** Reads one item of the array, standing on its first token. */
    @FunctionalInterface
    public interface Item<T> {
        /**
         * @param p      the parser, on the item's first token; left on its last
         * @param at     the item's path, for its errors
         * @param errors where errors are added
         * @return the item, or null when it had errors
         * @throws IOException on malformed JSON
         */
        T read(JsonParser p, ErrorPath at, List<FieldError> errors) throws IOException;
    }

    private final String name;
    private final int maxItems;
    private final String perRequest;
    private final boolean pathed;
    private final boolean locatesDuplicates;

    private ArrayEnvelope(String name, int maxItems, String perRequest, boolean pathed, boolean locatesDuplicates) {
        this.name = name;
        this.maxItems = maxItems;
        this.perRequest = perRequest;
        this.pathed = pathed;
        this.locatesDuplicates = locatesDuplicates;
    }

    /**
     * An envelope whose items are named by {@link FieldError#index()}.
     *
     * @param name       the array's member name, e.g. "tasks"
     * @param maxItems   the most items allowed
     * @param perRequest the cap's wording after the number, e.g. "tasks per request"
     * @return the envelope
     */
    public static ArrayEnvelope of(String name, int maxItems, String perRequest) {
        return new ArrayEnvelope(name, maxItems, perRequest, false, false);
    }

    /** @return this envelope naming its items in the field instead, {@code operations[1].type}, with no index */
    public ArrayEnvelope pathed() {
        return new ArrayEnvelope(name, maxItems, perRequest, true, locatesDuplicates);
    }

    /** @return this envelope naming the item in which the parser met a duplicate member name */
    public ArrayEnvelope locatingDuplicates() {
        return new ArrayEnvelope(name, maxItems, perRequest, pathed, true);
    }

    /**
     * Reads a whole body, then refuses it when any item had errors (content after the object is
     * refused first).
     *
     * @param body UTF-8 JSON
     * @param item reads one item
     * @return the items, in request order
     * @throws ApiProblem 400 for a body that is malformed, not this envelope, or has invalid items
     */
    public <T> List<T> read(byte[] body, Item<T> item) {
        List<FieldError> errors = new ArrayList<>();
        List<T> out = JsonRequest.read(body, "the body must be a JSON object with an \"" + name + "\" array",
                p -> read(p, errors, item));
        if (!errors.isEmpty()) {
            throw invalid(errors);
        }
        return out;
    }

    /**
     * Reads the envelope's members, the parser on its START_OBJECT and left on its END_OBJECT.
     * Errors are added, not thrown, except the item cap and {@link #MAX_REPORTED_ERRORS}.
     *
     * @param p      the parser
     * @param errors where errors are added
     * @param item   reads one item
     * @return the items read without error, in request order
     * @throws IOException on malformed JSON
     */
    public <T> List<T> read(JsonParser p, List<FieldError> errors, Item<T> item) throws IOException {
        List<T> items = new ArrayList<>();
        int index = -1; // the item being read, for a duplicate member name's location
        try {
            boolean seen = false;
            for (String member; (member = JsonRequest.nextMember(p)) != null; ) {
                if (!name.equals(member)) {
                    JsonRequest.unknown(p, ErrorPath.ROOT, member, errors);
                    continue;
                }
                seen = true;
                if (p.currentToken() != JsonToken.START_ARRAY) {
                    errors.add(ErrorPath.ROOT.error(name, "must be an array"));
                    p.skipChildren();
                    continue;
                }
                index = 0;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    if (index >= maxItems) {
                        throw ApiProblem.invalid(null, name, "at most " + maxItems + " " + perRequest);
                    }
                    T t = item.read(p, pathed ? ErrorPath.ROOT.element(name, index) : ErrorPath.item(index), errors);
                    if (t != null) {
                        items.add(t);
                    }
                    index++;
                    if (errors.size() >= MAX_REPORTED_ERRORS) {
                        throw invalid(errors);
                    }
                }
                index = -1; // past the array: a member name found twice now is the envelope's, no item's
            }
            if (!seen) {
                errors.add(ErrorPath.ROOT.error(name, "is required"));
            }
        } catch (IOException e) {
            if (locatesDuplicates) {
                throw JsonBodies.unparsable(e, index >= 0 ? index : null);
            }
            throw e;
        }
        return items;
    }

    /**
     * @param errors at least one error
     * @return the 400 naming items by this envelope
     */
    public ApiProblem invalid(List<FieldError> errors) {
        return ApiProblem.invalid(name, errors);
    }
}
