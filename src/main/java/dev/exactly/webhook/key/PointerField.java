package dev.exactly.webhook.key;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.exactly.problem.ApiProblem;
import dev.exactly.webhook.Delivery;

/**
 * The string or number at a JSON Pointer (RFC 6901) into the JSON body. A string is taken as is;
 * a number by its JSON text (so 42 and 42.0 differ); null or absent counts as missing; an object,
 * array or boolean is refused with a 400.
 */
public final class PointerField implements DeliveryField {

    private final String text;
    private final JsonPointer pointer;

    /**
     * @param pointer an RFC 6901 pointer, e.g. /id or /data/object/id
     * @throws IllegalArgumentException when it is not a valid pointer (it must start with '/')
     */
    public PointerField(String pointer) {
        this.text = pointer;
        this.pointer = compile(pointer);
    }

    /**
     * @return the compiled pointer
     * @throws IllegalArgumentException when {@code pointer} is empty (the whole document) or not RFC 6901
     */
    static JsonPointer compile(String pointer) {
        if (pointer.isEmpty() || pointer.charAt(0) != '/') {
            throw new IllegalArgumentException("a JSON Pointer must start with '/': " + pointer);
        }
        return JsonPointer.compile(pointer);
    }

    @Override
    public String read(Delivery delivery) {
        JsonNode v = delivery.json("the field " + text).at(pointer);
        if (v.isMissingNode() || v.isNull()) {
            return null;
        }
        if (v.isTextual()) {
            return v.textValue().isEmpty() ? null : v.textValue();
        }
        if (v.isNumber()) {
            return v.asText();
        }
        throw ApiProblem.invalid(null, text, "must be a string or a number");
    }

    @Override
    public String name() {
        return text;
    }
}
